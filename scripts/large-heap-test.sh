#!/usr/bin/env bash
# CTest LargeHeap.StartingAgainKeepsTheResult: `paratune analyze` on a trace above 8 MiB starts
# itself again with glibc's large-heap tunables (util/malloc_tuning.h, cli/main.cc); its document
# must be byte-identical to the run that opts out (GLIBC_TUNABLES set, here empty), with its
# arguments and output intact through the exec, and a set of two such files too.
#   large-heap-test.sh PARATUNE GENERATOR
set -euo pipefail
paratune="$1"
gen="$2"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/set"
for r in 0 1; do "$gen" --out "$dir/set/rank$r.json" --bytes 6M --world 2 --rank "$r" > /dev/null; done
size=$(du -cb "$dir"/set/*.json | tail -1 | cut -f1)
[ "$size" -ge $((8 << 20)) ] || { echo "the generated set is $size bytes, under 8 MiB"; exit 1; }
env -u GLIBC_TUNABLES "$paratune" analyze "$dir/set" --json > "$dir/tuned.json"
GLIBC_TUNABLES= "$paratune" analyze "$dir/set" --json > "$dir/plain.json"
cmp "$dir/tuned.json" "$dir/plain.json"
env -u GLIBC_TUNABLES "$paratune" analyze "$dir/set/rank0.json" "$dir/set/rank1.json" --json > "$dir/files.json"
cmp "$dir/tuned.json" "$dir/files.json"
echo "large heap: $size bytes, the same document with and without the tunables"
