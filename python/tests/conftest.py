# Shared by the pytest files: the paratune binary they compare the module with (PARATUNE_BINARY,
# set by CTest: cmake/python.cmake) and the source tree (PARATUNE_SOURCE_DIR).
import json
import os
import subprocess
from pathlib import Path

import pytest

# The CLI's environment: without the sanitizer build's preloaded ASan runtime, which the python3
# running the tests needs and the CLI has linked in (cmake/python.cmake).
CLI_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
SANITIZER_BUILD = os.environ.get("PARATUNE_SANITIZER") == "1"

SOURCE_DIR = Path(os.environ.get("PARATUNE_SOURCE_DIR", Path(__file__).resolve().parents[2]))


class Cli:
    """Runs the paratune binary the build made."""

    def __init__(self, binary):
        self.binary = binary

    def run(self, *args):
        return subprocess.run([self.binary, *map(str, args)], capture_output=True, text=True, timeout=600, env=CLI_ENV)

    def json(self, *args):
        """The --json document of a command that succeeds."""
        r = self.run(*args, "--json")
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    def error(self, *args):
        """The one-line message of a command that fails with bad input (status 2)."""
        r = self.run(*args)
        assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
        line = r.stderr.strip()
        prefix = "paratune: error: "
        assert line.startswith(prefix) and "\n" not in line, line
        return line[len(prefix):]


@pytest.fixture(scope="session")
def cli():
    binary = os.environ.get("PARATUNE_BINARY")
    if not binary:
        pytest.skip("PARATUNE_BINARY is not set (CTest sets it; docs/python.md)")
    return Cli(binary)


@pytest.fixture(scope="session")
def golden_step_time_s():
    """The default estimate's step time, as src/step/default_estimate_test.cc asserts it."""
    for line in (SOURCE_DIR / "testdata/default_step_time_s.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            return float.fromhex(line)
    raise AssertionError("testdata/default_step_time_s.txt holds no value")


SHARED_DIR = Path(os.environ.get("PARATUNE_SHARED_DIR", SOURCE_DIR.parent / "shared"))


def shared_or_skip(relative):
    """The path of `relative` under ../shared, or a skip naming the missing path (as the C++
    tests' PARATUNE_SHARED_OR_SKIP)."""
    path = SHARED_DIR / relative
    if not path.exists():
        pytest.skip(f"{path} is absent (the project's shared data beside the checkout)")
    return path
