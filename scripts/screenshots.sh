#!/usr/bin/env bash
# Regenerates docs/images/report-*.png: one report of each kind (plan, estimate, simulate,
# analyze, diagnose, cluster) rendered by `paratune report` and captured by headless Chromium
# (scripts/install-deps.sh installs it). Needs a release build; the cluster and diagnose
# examples read ../shared when present and fall back to built-in inputs otherwise.
# Usage: scripts/screenshots.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
P="$(realpath "${1:-build/release}")/paratune"
G="$(dirname "$P")/paratune_gen_faults"
root="$PWD"
out=docs/images
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$P" plan --model llama-3.1-70b --gpu H100 --nodes 8 --seq 8192 --global-batch 256 --top 6 --sweep tp --json --quiet > "$tmp/plan.json"
"$P" estimate --model llama-3.1-70b --gpu H100 --nodes 8 --tp 8 --pp 4 --vp 5 --global-batch 256 --seq 8192 --json > "$tmp/estimate.json"
"$P" simulate --model llama-3.1-70b --gpu H100 --nodes 8 --tp 8 --pp 4 --global-batch 32 --seq 8192 --json --timeline > "$tmp/simulate.json"
"$P" analyze testdata/traces/hta/trace_filter --json > "$tmp/analyze.json"
"$G" "$tmp/faults" > /dev/null
"$P" diagnose "$tmp/faults/throughput_change_point_step/train.log" "$tmp/faults/thermal_throttling_gpu3/nvidia_smi.csv" --json > "$tmp/diagnose.json"
trace=../shared/cluster-traces/philly-pollux/philly.csv
if [ -f "$trace" ]; then
  "$P" cluster --job-history "$trace" --nodes 64 --gpu H100 --policy fifo,topo,topo-preempt --production-vc 103959,ee9e8c,0e4a51 --json --quiet > "$tmp/cluster.json"
else
  printf 'submit_s,gpus,run_s,class\n0,8,1000,experimental\n10,8,100,production\n20,4,50,experimental\n' > "$tmp/t.csv"
  "$P" cluster --job-history "$tmp/t.csv" --nodes 1 --gpu H100 --policy fifo,topo,topo-preempt --min-run 0 --json > "$tmp/cluster.json"
fi
cd "$tmp"
for k in plan estimate simulate analyze diagnose cluster; do
  "$P" report "$k.json" --out "$k.html" --title "paratune report: $k" > /dev/null
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,1300 \
    --screenshot="$root/$out/report-$k.png" "file://$tmp/$k.html" 2>/dev/null
done
cd "$root"
ls -l "$out"/report-*.png
