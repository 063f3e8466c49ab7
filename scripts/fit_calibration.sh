#!/usr/bin/env bash
# Refits data/calibration.toml (the eight achievable fractions per GPU generation) on the
# development runs, starting from data/calibration_initial.toml. Rebuild afterwards: the
# catalogs are compiled in. Usage: scripts/fit_calibration.sh [CSV ...]
set -euo pipefail
cd "$(dirname "$0")/.."
# Both development files: the published runs (tokens/s) and the SimuMax 8-GPU runs (step time).
if [ $# -gt 0 ]; then csvs=("$@"); else
  csvs=(../shared/validation/published_runs_dev.csv ../shared/validation/simumax_runs_dev.csv); fi
bin=build/release/paratune
[ -x "$bin" ] || { cmake --preset release && cmake --build --preset release -j 2; }
"$bin" calibrate "${csvs[@]}" --hardware data/calibration_initial.toml --out data/calibration.toml
echo "wrote data/calibration.toml; rebuild with: cmake --build --preset release"
