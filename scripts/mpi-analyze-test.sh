#!/usr/bin/env bash
# CTest MpiAnalyze.FourProcessesMatchOne: `mpirun --oversubscribe -n 4 paratune analyze` on a
# generated 16-rank set (tools/gen_kineto_trace, 20 MB a rank; 8 of 5 MB under the sanitizers)
# against one process
# (analysis/distributed_analysis.h, docs/analysis.md "Across processes"):
#   - the --json documents are byte-identical, with and without --gpu (the link ceilings) and
#     --critical-path (each rank's path, the collective waits from the exchanged kernels);
#   - a truncated file in the middle of the set: exit status 2, the one-process error as the only
#     line paratune writes, nothing on stdout, no process left waiting (bounded by `timeout`);
#   - memory: each of the 4 processes' peak RSS above what MPI and the binary take alone is at
#     most half the one process's above its own (each holds a quarter of the events; the rest is
#     the summaries every process gets). Skipped under the sanitizers (ASan's shadow memory).
#   mpi-analyze-test.sh PARATUNE GENERATOR [sanitized]
# Exit 77 (skip) with one line when mpirun is absent or paratune was built without MPI.
set -euo pipefail
paratune="$1"
gen="$2"
sanitized="${3:-}"
command -v mpirun >/dev/null || { echo "skipped: no mpirun (Debian's openmpi-bin)"; exit 77; }
"$paratune" --version | grep -q "with MPI" || { echo "skipped: paratune built without MPI"; exit 77; }
# OpenMPI refuses root unless told (CI runs as root); OpenMPI's own allocations are not ours.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
for v in $(env | grep -o '^SLURM_[A-Z_]*' || true); do unset "$v"; done
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/set" "$dir/broken"
# Under the sanitizers (5-10 times slower) 8 ranks of 5 MB keep the suite's time; the memory
# check below is skipped there anyway.
ranks=16 bytes=20000000
[ -z "$sanitized" ] || ranks=8 bytes=5000000
for r in $(seq 0 $((ranks - 1))); do
  "$gen" --out "$dir/set/rank$r.json" --bytes "$bytes" --world "$ranks" --rank "$r" >/dev/null
done
mpi() { timeout 300 mpirun --oversubscribe -n 4 "$@"; }

# Identical documents.
"$paratune" analyze "$dir/set" --json --quiet >"$dir/one.json"
mpi "$paratune" analyze "$dir/set" --json --quiet >"$dir/four.json"
cmp "$dir/one.json" "$dir/four.json" || { echo "FAIL: 4 processes' document differs from 1's" >&2; exit 1; }
"$paratune" analyze "$dir/set" --json --quiet --gpu H100 --critical-path ProfilerStep >"$dir/one_gpu.json"
mpi "$paratune" analyze "$dir/set" --json --quiet --gpu H100 --critical-path ProfilerStep >"$dir/four_gpu.json"
cmp "$dir/one_gpu.json" "$dir/four_gpu.json" || { echo "FAIL: with --gpu and --critical-path, 4 processes differ from 1" >&2; exit 1; }
python3 - "$dir/one.json" "$ranks" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
assert len(a["ranks"]) == int(sys.argv[2]), len(a["ranks"])
assert a["stragglers"]["collectives_matched"] > 0, a["stragglers"]["collectives_matched"]
PY

# A broken file in the middle: every process stops, one line, status 2.
cp "$dir"/set/*.json "$dir/broken/"
head -c 2000000 "$dir/set/rank3.json" >"$dir/broken/rank3.json"
set +e
"$paratune" analyze "$dir/broken" --json --quiet >/dev/null 2>"$dir/one.err"
one_rc=$?
mpi "$paratune" analyze "$dir/broken" --json --quiet >"$dir/four.out" 2>"$dir/four.err"
four_rc=$?
set -e
[ "$one_rc" -eq 2 ] && [ "$four_rc" -eq 2 ] || { echo "FAIL: exit $one_rc (1 process), $four_rc (4)" >&2; exit 1; }
grep "^paratune" "$dir/four.err" >"$dir/four.lines" || true
cmp "$dir/one.err" "$dir/four.lines" || { echo "FAIL: 4 processes said:" >&2; cat "$dir/four.err" >&2; exit 1; }
grep -q "rank3.json: truncated" "$dir/one.err" || { cat "$dir/one.err" >&2; exit 1; }
[ ! -s "$dir/four.out" ] || { echo "FAIL: output written beside the error" >&2; exit 1; }

[ -z "$sanitized" ] || { echo "ok (memory not measured under the sanitizers)"; exit 0; }
# Peak RSS of each process (kB), from a wrapper that waits for paratune.
cat >"$dir/rss.py" <<'PY'
import os, resource, subprocess, sys
rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL).returncode
with open(sys.argv[1] + "." + os.environ.get("OMPI_COMM_WORLD_RANK", "0"), "w") as f:
    f.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(rc)
PY
mkdir "$dir/tiny"
"$gen" --out "$dir/tiny/rank0.json" --steps 3 --world 1 --rank 0 >/dev/null
# Measured with glibc's malloc defaults (GLIBC_TUNABLES set, empty: paratune does not start
# itself again with its large-heap tunables, util/malloc_tuning.h). The tiny base run is under
# the 8 MiB at which the tunables apply and the set is over it, so with them the two would run
# different mallocs; and 2 MiB pages with a heap kept for reuse blur a difference of a few tens of
# MiB (measured 0.40-0.56 of one process's). What this measures is the events each process holds.
export GLIBC_TUNABLES=
python3 "$dir/rss.py" "$dir/one_tiny" "$paratune" analyze "$dir/tiny" --json --quiet
python3 "$dir/rss.py" "$dir/one_set" "$paratune" analyze "$dir/set" --json --quiet
mpi python3 "$dir/rss.py" "$dir/four_tiny" "$paratune" analyze "$dir/tiny" --json --quiet
mpi python3 "$dir/rss.py" "$dir/four_set" "$paratune" analyze "$dir/set" --json --quiet
python3 - "$dir" <<'PY'
import glob, sys
d = sys.argv[1]
kb = lambda pattern: [int(open(p).read()) for p in sorted(glob.glob(d + "/" + pattern))]
one = kb("one_set.*")[0] - kb("one_tiny.*")[0]
four = max(kb("four_set.*")) - max(kb("four_tiny.*"))
print(f"peak RSS above the base: 1 process {one / 1024:.1f} MiB, 4 processes at most {four / 1024:.1f} MiB each "
      f"({four / one:.2f} of it)")
assert four <= 0.5 * one, (four, one)
PY
