# paratune.validate(): the document of `paratune validate --json` and its rows as a table.
import math

import pytest

import paratune
from conftest import SOURCE_DIR, shared_or_skip

pandas = pytest.importorskip("pandas", reason="pandas (Debian python3-pandas) is not installed")

FIXTURE = SOURCE_DIR / "testdata/validation/hf_model_not_in_catalog.csv"


def test_validate_is_the_clis_with_its_rows(cli):
    v = paratune.validate(FIXTURE)
    doc = cli.json("validate", FIXTURE)
    assert v.to_dict() == doc
    assert isinstance(v, paratune.Validation) and v.schema == "paratune.validate/1"
    frame = v.to_frame()
    assert list(frame["id"]) == [r["id"] for r in doc["rows"]] == [r.id for r in v.rows]
    for got, want in zip(frame["ape"], (r.get("ape") for r in doc["rows"])):
        assert (want is None and math.isnan(got)) or got == want
    assert "MAPE" in str(v)


def test_development_file_figures_are_the_clis(cli):
    dev = shared_or_skip("validation/published_runs_dev.csv")
    v = paratune.validate(dev)
    assert v.to_dict() == cli.json("validate", dev)
    assert sum(1 for r in v.rows if r.predicted) >= 158  # docs/validation.md: 158 of 166 modelled
    assert v.overall.mape <= 0.06  # issue 33's target for the first development file
    groups = v.groups()
    assert {"dimension", "value"} <= set(groups.columns)


def test_bad_file_is_the_clis_line(cli, tmp_path):
    bad = tmp_path / "runs.csv"
    bad.write_text("id,gpu\nX,H100\n")
    with pytest.raises(paratune.InputError) as e:
        paratune.validate(bad)
    assert str(e.value) == cli.error("validate", bad)
    with pytest.raises(paratune.InputError) as e:
        paratune.validate(tmp_path / "none.csv")
    assert str(e.value) == cli.error("validate", tmp_path / "none.csv")
    with pytest.raises(paratune.InputError) as e:
        paratune.validate(FIXTURE, hardware=tmp_path / "none.toml")
    assert str(e.value) == cli.error("validate", FIXTURE, "--hardware", tmp_path / "none.toml")


def test_progress_sees_every_row_and_its_exception_stops_the_call():
    seen = []
    v = paratune.validate(FIXTURE, progress=lambda what, done, total: seen.append((what, done, total)))
    n = len(v.rows)
    assert n > 0 and seen == [("validating, rows", i, n) for i in range(1, n + 1)]

    class Stop(Exception):
        pass

    def stop(what, done, total):
        raise Stop(done)

    with pytest.raises(Stop) as e:
        paratune.validate(FIXTURE, progress=stop)
    assert e.value.args == (1,)  # stopped at the first row's report
