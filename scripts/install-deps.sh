#!/usr/bin/env bash
# Installs paratune's build and test dependencies from Debian 12 packages. Idempotent:
# packages already present are skipped by apt-get, and nothing is downloaded when all are there.
set -euo pipefail
pkgs=(
  build-essential cmake ninja-build pkg-config
  # lld: links several times faster than GNU ld (CMakeLists.txt, PARATUNE_USE_LLD)
  lld
  libcli11-dev nlohmann-json3-dev libfmt-dev libtomlplusplus-dev
  libsimdjson-dev zlib1g-dev libsqlite3-dev sqlite3 libcpp-httplib-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # the run registry's PostgreSQL back end (libpq) and the server its tests start
  # (scripts/pg-test-server.sh, docs/runs-storage.md)
  libpq-dev postgresql
  # SHA-256 of the files the run registry records (libcrypto, src/runs/sha256.h)
  libssl-dev
  # PNG decoding of the browser tests' screenshots (libpng, src/report/browser_test_util.h)
  libpng-dev
  # the function-length check (scripts/function-length.sh)
  universal-ctags
  # the format check (scripts/check-format.sh, .clang-format)
  clang-format
  # .ci/run: clang with its AddressSanitizer, UBSan and libFuzzer runtimes (preset sanitize: the
  # tests and the fuzz targets), llvm-symbolizer for readable sanitizer reports; GCC's runtimes
  # for the local preset asan
  libasan8 libubsan1 clang libclang-rt-14-dev llvm-14
  # the report's browser tests (src/report/browser_test.cc): headless Chromium and a font for the
  # pages' text (docs/report-browser.md)
  chromium fonts-dejavu-core
  # the Python module `import paratune` (src/python/, docs/python.md) and its pytest tests; pandas
  # for the tests of to_pandas() (the module itself imports it only when to_pandas() is called)
  pybind11-dev python3-pybind11 python3-pytest python3-dev python3-pandas
  # MPI, so that `mpirun`/`srun` share one job's traces among processes (analyze; CMake option
  # PARATUNE_MPI, src/util/mpi_process_group.cc, docs/analysis.md "Across processes")
  libopenmpi-dev openmpi-bin
  # Prometheus's linter (promtool) and server for the tests of serve's /metrics page
  # (src/runs/registry_metrics_test.cc, docs/runs.md "Metrics")
  prometheus
  # a throw-away one-node Slurm with accounting (slurmctld, slurmd, slurmdbd on a private MariaDB)
  # for the test of the Slurm reader on real sacct output (scripts/slurm-test-cluster.sh,
  # docs/slurm-test-cluster.md); munge only where a Slurm lacks auth/none (Slurm's packages
  # depend on it anyway)
  slurmctld slurmd slurmdbd slurm-client mariadb-server munge
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
