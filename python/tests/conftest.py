# Shared by the pytest files: the paratune binary they compare the module with (PARATUNE_BINARY,
# set by CTest: cmake/python.cmake) and the source tree (PARATUNE_SOURCE_DIR).
import json
import os
import subprocess
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("PARATUNE_SOURCE_DIR", Path(__file__).resolve().parents[2]))


class Cli:
    """Runs the paratune binary the build made."""

    def __init__(self, binary):
        self.binary = binary

    def run(self, *args):
        return subprocess.run([self.binary, *map(str, args)], capture_output=True, text=True, timeout=600)

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
