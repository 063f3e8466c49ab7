#!/usr/bin/env bash
# Refits data/calibration.toml (the seven achievable fractions per GPU generation) on the
# development runs, starting from data/calibration_initial.toml. Rebuild afterwards: the
# catalogs are compiled in. Usage: scripts/fit_calibration.sh [path/to/published_runs_dev.csv]
set -euo pipefail
cd "$(dirname "$0")/.."
csv=${1:-../shared/validation/published_runs_dev.csv}
bin=build/release/paratune
[ -x "$bin" ] || { cmake --preset release && cmake --build --preset release -j 2; }
"$bin" calibrate "$csv" --hardware data/calibration_initial.toml --out data/calibration.toml
echo "wrote data/calibration.toml; rebuild with: cmake --build --preset release"
