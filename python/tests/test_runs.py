# paratune.runs: the run registry from Python, the same documents as `paratune runs ... --json`
# on the same store (the steps of src/cli/runs_cli_test.cc), bad input as the CLI says it.
import pytest

import paratune
from conftest import SOURCE_DIR

REPORT = SOURCE_DIR / "testdata/report"


def test_record_show_list_compare_export_are_the_clis(cli, tmp_path):
    db = tmp_path / "runs.db"
    with paratune.runs.open(db) as reg:
        r = reg.record(REPORT / "estimate.json", name="base", tags={"team": "a"}, software="Megatron-LM core_r0.12",
                       baseline=True)
        assert r.schema == "paratune.runs.record/1" and r.created is True and r.files_added == 1
        r = reg.record([REPORT / "analyze.json", REPORT / "estimate.json"], name="next", model="llama-3.1-70b",
                       cluster="64xH100")
        assert r.created is True and r.files_added == 2
        again = reg.record(REPORT / "analyze.json", name="next")
        assert again.created is False and again.files_added == 0 and again.files_unchanged == 1

        show = reg.show("base")
        assert show.to_dict() == cli.json("runs", "show", "base", "--db", db)
        assert show.tags.team == "a" and show.layout.pp == 4
        assert show.figures.mfu.predicted == 0.40284736579498026  # as runs_cli_test.cc asserts

        listed = reg.list(tag="team=a")
        assert listed.to_dict() == cli.json("runs", "list", "--db", db, "--filter", "tag=team=a")
        assert [x.name for x in listed.runs] == ["base"] and listed.total == 1
        limited = reg.list(limit=1)
        assert limited.to_dict() == cli.json("runs", "list", "--db", db, "--limit", 1)
        assert [x.name for x in limited.runs] == ["next"] and limited.total == 2  # newest first
        frame = reg.list().to_frame()
        assert list(frame["name"]) == ["next", "base"]

        c = reg.compare("next")
        assert c.to_dict() == cli.json("runs", "compare", "next", "--db", db)
        assert c.a == "base" and c.baseline_scope == "cluster=64xH100 model=llama-3.1-70b"
        assert reg.compare("base", "next").to_dict() == cli.json("runs", "compare", "base", "next", "--db", db)
        assert reg.baselines().to_dict() == cli.json("runs", "baseline", "show", "--db", db)
        assert reg.export_csv() == cli.run("runs", "export", "--csv", "--db", db).stdout
    with pytest.raises(paratune.InputError, match="closed"):
        reg.show("base")


def test_record_csv_is_the_clis(cli, tmp_path):
    csv = SOURCE_DIR / "testdata/validation/hf_model_not_in_catalog.csv"
    with paratune.runs.open(tmp_path / "py.db") as reg:
        got = reg.record_csv(csv, cluster_name="lab", tags={"team": "b"})
    want = cli.json("runs", "record", "--csv", csv, "--cluster-name", "lab", "--tag", "team=b", "--db", tmp_path / "cli.db")
    assert got.schema == "paratune.runs.import/1"
    assert [(r.name, r.cluster, r.created) for r in got.runs] == [(r["name"], r["cluster"], r["created"]) for r in want["runs"]]
    assert got.to_dict()["skipped"] == want["skipped"]
    assert got.runs and all(r.cluster == "lab" for r in got.runs)


def test_old_cluster_keyword_still_works_with_a_warning(tmp_path):
    # Renamed with the CLI's runs record --cluster (issue 38): cluster_name=.
    csv = SOURCE_DIR / "testdata/validation/hf_model_not_in_catalog.csv"
    with paratune.runs.open(tmp_path / "py.db") as reg:
        with pytest.warns(DeprecationWarning, match=r"^record_csv\(\): cluster= is deprecated; use cluster_name=$"):
            got = reg.record_csv(csv, cluster="lab")
        assert got.runs and all(r.cluster == "lab" for r in got.runs)
        with pytest.warns(DeprecationWarning, match=r"^record\(\): cluster= is deprecated; use cluster_name=$"):
            r = reg.record(REPORT / "estimate.json", name="old", cluster="lab2")
        assert reg.show(r.name).cluster == "lab2"
        with pytest.raises(TypeError, match="got both cluster_name and its old name cluster"):
            reg.record(REPORT / "estimate.json", name="both", cluster="a", cluster_name="b")
        with pytest.raises(TypeError, match="got both cluster_name and its old name cluster"):
            reg.record_csv(csv, cluster="a", cluster_name="b")


def test_bad_input_is_the_clis_line(cli, tmp_path):
    db = tmp_path / "runs.db"
    with pytest.raises(paratune.InputError) as e:
        paratune.runs.open(tmp_path / "missing.db", create=False)
    assert str(e.value) == cli.error("runs", "list", "--db", tmp_path / "missing.db")
    with pytest.raises(paratune.InputError) as e:
        paratune.runs.open("")
    assert str(e.value) == cli.error("runs", "list", "--db", "")
    reg = paratune.runs.open(db)
    with pytest.raises(paratune.InputError) as e:
        reg.record(tmp_path / "none.json", name="x")
    assert str(e.value) == cli.error("runs", "record", tmp_path / "none.json", "--name", "x", "--db", db)
    with pytest.raises(paratune.InputError) as e:
        reg.show("nobody")
    assert str(e.value) == cli.error("runs", "show", "nobody", "--db", db)
    with pytest.raises(paratune.InputError) as e:
        reg.list(colour="red")
    assert str(e.value) == cli.error("runs", "list", "--filter", "colour=red", "--db", db)
    reg.close()
