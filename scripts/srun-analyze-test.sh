#!/usr/bin/env bash
# CTest SrunAnalyze.TwoTasksMatchOne: `srun --mpi=pmix -n 2 paratune analyze DIR` on the throw-away
# Slurm of scripts/slurm-test-cluster.sh (Debian's Slurm 22.05 with its PMIx plugin, Debian's
# OpenMPI built against the same PMIx): the two tasks share the rank files and give the document
# of one process, byte for byte (docs/analysis.md "Across processes"); a truncated file in the
# middle of the set stops both tasks with one process's one line and status 2, nothing on stdout.
#   srun-analyze-test.sh PARATUNE GENERATOR
# Exit 77 (skip) with one line when Slurm, MariaDB, srun's pmix plugin or MPI in the build is
# missing; every wait is bounded.
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 PARATUNE GENERATOR" >&2; exit 2; }
paratune="$1"
gen="$2"
here="$(cd "$(dirname "$0")" && pwd)"
for v in $(env | grep -o '^SLURM_[A-Z_]*' || true); do unset "$v"; done
# Open MPI's own allocations outlive MPI_Finalize: no leak report under the sanitizers.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
"$paratune" --version | grep -q "with MPI" || { echo "skip: paratune built without MPI"; exit 77; }
command -v srun >/dev/null || { echo "skip: srun not found (Debian package slurm-client)"; exit 77; }

out="$(PARATUNE_SLURM_OWNER=$$ bash "$here/slurm-test-cluster.sh" start 2>&1)"
rc=$?
if [ $rc -eq 77 ]; then echo "$out" | tail -n 1; exit 77; fi
if [ $rc -ne 0 ]; then echo "$out" >&2; exit 1; fi
dir="$(echo "$out" | tail -n 1)"
trap 'bash "$here/slurm-test-cluster.sh" stop "$dir" >/dev/null' EXIT
export SLURM_CONF="$dir/slurm.conf"
timeout 20 srun --mpi=list 2>&1 | grep -qw pmix || { echo "skip: srun has no pmix plugin"; exit 77; }
job() { timeout 120 srun --mpi=pmix -n 2 -c 1 --quiet "$@"; }

mkdir "$dir/set" "$dir/broken"
# 4 ranks of about 3.4 MB: above the 8 MiB at which paratune starts itself again with its malloc
# tunables (util/malloc_tuning.h), so the exec under srun is part of what is tested.
for r in 0 1 2 3; do "$gen" --out "$dir/set/rank$r.json" --bytes 4M --world 4 --rank "$r" >/dev/null || exit 1; done
"$paratune" analyze "$dir/set" --json --quiet >"$dir/one.json" || exit 1
job "$paratune" analyze "$dir/set" --json --quiet >"$dir/two.json" 2>"$dir/two.err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: srun exited $rc" >&2; cat "$dir/two.err" >&2; exit 1; }
cmp "$dir/one.json" "$dir/two.json" || { echo "FAIL: 2 srun tasks' document differs from 1 process's" >&2; exit 1; }

cp "$dir"/set/*.json "$dir/broken/"
head -c 2000000 "$dir/set/rank2.json" >"$dir/broken/rank2.json"
"$paratune" analyze "$dir/broken" --json --quiet >/dev/null 2>"$dir/one.err"
one_rc=$?
job "$paratune" analyze "$dir/broken" --json --quiet >"$dir/two.out" 2>"$dir/two.err"
two_rc=$?
[ "$one_rc" -eq 2 ] && [ "$two_rc" -eq 2 ] || { echo "FAIL: exit $one_rc (1 process), $two_rc (srun)" >&2; cat "$dir/two.err" >&2; exit 1; }
grep "^paratune" "$dir/two.err" >"$dir/two.lines" || true
cmp "$dir/one.err" "$dir/two.lines" || { echo "FAIL: the srun tasks said:" >&2; cat "$dir/two.err" >&2; exit 1; }
grep -q "rank2.json: truncated" "$dir/one.err" || { cat "$dir/one.err" >&2; exit 1; }
[ ! -s "$dir/two.out" ] || { echo "FAIL: output written beside the error" >&2; exit 1; }
echo "srun: 2 tasks gave the one-process document; a truncated file: status 2, one line"
