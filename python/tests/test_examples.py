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
