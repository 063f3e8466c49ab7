# paratune.simulate() and paratune.diagnose(): the documents of `simulate --json` and
# `diagnose --json`, their tables, and bad input as the CLI says it.
import json
import math

import pytest

import paratune
from conftest import SOURCE_DIR, golden_step_time_s  # noqa: F401 (a fixture)

pandas = pytest.importorskip("pandas", reason="pandas (Debian python3-pandas) is not installed")


def test_simulate_is_the_clis_and_its_step_is_the_estimates(cli, golden_step_time_s):
    s = paratune.simulate()
    assert s.to_dict() == cli.json("simulate")
    assert s.step_time_s.hex() == golden_step_time_s.hex() == paratune.estimate().step_time_s.hex()
    frame = s.to_frame()
    assert list(frame["stage"]) == [st["stage"] for st in s.to_dict()["stages"]]
    assert list(frame["forward_s"]) == [st["forward_s"] for st in s.to_dict()["stages"]]


def test_simulate_timeline_and_trace_are_the_clis(cli, tmp_path):
    args = dict(model="llama-3.1-8b", gpu="H100", gpus=8, tp=2, pp=4, global_batch=32)
    flags = ["--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", 8, "--tp", 2, "--pp", 4, "--global-batch", 32]
    s = paratune.simulate(timeline=True, **args)
    assert s.to_dict() == cli.json("simulate", "--timeline", *flags)
    events = s.events()
    assert list(events.columns) == s.timeline.columns and len(events) == len(s.timeline.events) > 100
    assert set(events["phase"]) >= {"F", "B"}
    trace = tmp_path / "step.json"
    with_trace = paratune.simulate(trace_out=trace, **args)
    assert with_trace.trace == str(trace)
    cli_trace = tmp_path / "cli.json"
    assert cli.run("simulate", "--trace-out", cli_trace, *flags).returncode == 0
    assert json.loads(trace.read_text()) == json.loads(cli_trace.read_text())
    with pytest.raises(paratune.InputError, match="--trace-out: give a file path"):
        paratune.simulate(trace_out="-")
    with pytest.raises(ValueError, match="timeline=True"):
        paratune.simulate(**args).events()


def test_simulate_old_trace_keyword_still_works_with_a_warning(tmp_path):
    # Renamed with the CLI's simulate --trace (issue 38): trace_out=.
    args = dict(model="llama-3.1-8b", gpu="H100", gpus=8, tp=2, pp=4, global_batch=32)
    new_path, old_path = tmp_path / "new.json", tmp_path / "old.json"
    new = paratune.simulate(trace_out=new_path, **args)
    with pytest.warns(DeprecationWarning, match=r"^simulate\(\): trace= is deprecated; use trace_out=$") as caught:
        old = paratune.simulate(trace=old_path, **args)
    assert len(caught) == 1 and caught[0].filename == __file__
    assert old.trace == str(old_path) and old.step_time_s == new.step_time_s
    assert old_path.read_bytes() == new_path.read_bytes()
    with pytest.raises(TypeError, match="got both trace_out and its old name trace"):
        paratune.simulate(trace=old_path, trace_out=new_path, **args)


def test_simulate_bad_input_is_the_clis_line(cli):
    with pytest.raises(paratune.InputError) as e:
        paratune.simulate(tp=3)
    assert str(e.value) == cli.error("simulate", "--tp", 3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'top'"):
        paratune.simulate(top=3)


def test_rules_are_the_clis_list(cli):
    listed = [line.split(None, 1) for line in cli.run("diagnose", "--list-rules").stdout.splitlines()]
    assert [(name, summary.strip()) for name, summary in listed] == [(n, s.strip()) for n, s in paratune.rules()]
    assert len(paratune.rules()) == len(listed) == 16


def test_diagnose_is_the_clis_with_its_tables(cli):
    traces = [SOURCE_DIR / "testdata/traces/hta/trace_filter"]
    d = paratune.diagnose(traces, model="llama-3.1-8b", gpu="H100", gpus=2, tp=1)
    doc = cli.json("diagnose", "--quiet", *traces, "--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", 2, "--tp", 1)
    assert d.to_dict() == doc
    assert isinstance(d, paratune.Diagnosis) and d.schema == "paratune.diagnose/1"
    assert [i.kind for i in d.inputs] == ["trace", "trace"]
    assert len(d.findings) > 0
    frame = d.to_frame()
    assert list(frame["rule"]) == [f["rule"] for f in doc["findings"]]
    for got, want in zip(frame["loss_fraction"], (f["loss_fraction"] for f in doc["findings"])):
        assert (want is None and math.isnan(got)) or got == want
    evidence = d.evidence()
    assert len(evidence) == sum(len(f["evidence"]) for f in doc["findings"])
    assert "rule" in str(d) or d.findings[0].rule in str(d)


def test_diagnose_bad_input_is_the_clis_line(cli, tmp_path):
    with pytest.raises(paratune.InputError) as e:
        paratune.diagnose()
    assert str(e.value) == cli.error("diagnose")
    unknown = tmp_path / "mystery.txt"
    unknown.write_text("nothing any reader knows\n")
    with pytest.raises(paratune.InputError) as e:
        paratune.diagnose(unknown)
    assert str(e.value) == cli.error("diagnose", "--quiet", unknown)
    assert str(unknown) in str(e.value)
