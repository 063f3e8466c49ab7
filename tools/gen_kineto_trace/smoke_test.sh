#!/usr/bin/env bash
# Smoke test of the trace generator (CTest gen_trace_smoke): two ranks of two steps each, analyzed
# by paratune, whose figures must match the generator's model (main.cc's header comment):
# per step, each of the 16 layers' parameters all-gathered in the forward and again in the
# backward (32 calls) and their gradients reduce-scattered once (16), one gradient-norm
# all-reduce; a layer is 4096*6144 + 4096*4096 + 3*4096*14336 + 2*4096 = 218,112,000 BF16
# parameters, 436,224,000 bytes per all-gather. The analysis window is one step (the second
# ProfilerStep closes it).
#   smoke_test.sh GENERATOR PARATUNE
set -euo pipefail
gen="$1"
paratune="$2"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/traces"
for r in 0 1; do "$gen" --out "$dir/traces/rank$r.json" --steps 2 --world 2 --rank "$r" > /dev/null; done
"$paratune" analyze "$dir/traces" --json > "$dir/analysis.json"
python3 - "$dir" <<'PY'
import json, os, sys
d = sys.argv[1]
a = json.load(open(os.path.join(d, "analysis.json")))
size = sum(os.path.getsize(os.path.join(d, "traces", f"rank{r}.json")) for r in (0, 1))
assert a["bytes_read"] == size, (a["bytes_read"], size)
assert len(a["ranks"]) == 2, len(a["ranks"])
layer_bytes = 2 * (4096 * 6144 + 4096 * 4096 + 3 * 4096 * 14336 + 2 * 4096)
for rank in a["ranks"]:
    assert rank["world_size"] == 2 and rank["device"] == "NVIDIA H100 80GB HBM3", rank["path"]
    assert rank["step_time"]["count"] == 1, rank["step_time"]
    got = {c["kind"]: (c["count"], c["bytes"]) for c in rank["collectives"]}
    want = {"all_gather": (32, 32 * layer_bytes), "reduce_scatter": (16, 16 * layer_bytes), "all_reduce": (1, 2.0)}
    assert got == want, (rank["path"], got, want)
print(f"gen_trace smoke: {size} bytes in 2 ranks, collectives as modelled")
PY
