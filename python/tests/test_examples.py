# The scripts of examples/ run as users would run them.
import os
import subprocess
import sys

from conftest import SOURCE_DIR


def run_example(name, *args):
    return subprocess.run([sys.executable, str(SOURCE_DIR / "examples" / name), *map(str, args)],
                          capture_output=True, text=True, timeout=300, env=os.environ.copy())


def test_check_layout_starts_a_fitting_layout():
    r = run_example("check_layout.py", "--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", 16, "--tp", 2)
    assert r.returncode == 0, r.stderr
    assert "tokens/s per GPU" in r.stdout and "--tensor-model-parallel-size 2" in r.stdout


def test_check_layout_refuses_a_layout_that_does_not_fit():
    r = run_example("check_layout.py", "--model", "llama-3.1-70b", "--gpu", "H100", "--gpus", 32, "--tp", 1, "--pp", 1)
    assert r.returncode == 1 and "does not fit" in r.stderr, (r.stdout, r.stderr)
    assert "the planner's best: tp " in r.stdout


def test_check_layout_bad_input_is_status_two_with_the_clis_line():
    r = run_example("check_layout.py", "--gpu", "NO-SUCH-GPU")
    assert r.returncode == 2 and r.stderr.startswith("check_layout: --gpu: "), r.stderr


def test_trace_breakdown_prints_htas_tables_and_the_prediction():
    import pytest

    pytest.importorskip("pandas", reason="pandas (Debian python3-pandas) is not installed")
    import paratune

    traces = SOURCE_DIR / "testdata/traces/hta/trace_filter"
    r = run_example("trace_breakdown.py", traces, "--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", 2, "--tp", 1)
    assert r.returncode == 0, r.stderr
    a = paratune.analyze(traces)
    for rank in a.ranks:  # the breakdown printed is the analysis's, as HTA rounds it
        row = f"{rank.rank}"
        assert any(line.split()[:1] == [row] and f"{round(rank.temporal.idle_pct, 2)}" in line
                   for line in r.stdout.splitlines()), (rank.rank, r.stdout)
    assert "GPU time by kernel category" in r.stdout and "gemm" in r.stdout
    assert "predicted step" in r.stdout and "measured" in r.stdout


def test_trace_breakdown_bad_input_is_status_two():
    r = run_example("trace_breakdown.py", "/no/such/trace.json")
    assert r.returncode == 2 and r.stderr.startswith("trace_breakdown: ") and "/no/such/trace.json" in r.stderr, r.stderr
