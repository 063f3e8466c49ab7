#!/usr/bin/env bash
# Regenerates testdata/report/*.json, the report and browser tests' fixtures: one --json
# document of each command the report draws, written by paratune itself (release build).
# Usage: scripts/report_fixtures.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
P="$(realpath "${1:-build/release}")/paratune"
G="$(dirname "$P")/paratune_gen_faults"
out=testdata/report
mkdir -p "$out"
"$P" plan --model llama-3.1-8b --gpu H100 --gpus 8 --seq 4096 --global-batch 64 --top 5 --sweep tp --json --quiet > "$out/plan.json"
"$P" estimate --model llama-3.1-70b --gpu H100 --nodes 8 --tp 8 --pp 4 --global-batch 256 --seq 8192 --json > "$out/estimate.json"
"$P" simulate --model llama-3.1-8b --gpu H100 --gpus 16 --tp 2 --pp 4 --global-batch 32 --json --timeline > "$out/simulate.json"
"$P" analyze testdata/traces/hta/trace_filter --json > "$out/analyze.json"
"$P" analyze testdata/report/traces/collectives_rank-0.json --gpu H100 --json > "$out/analyze_ceiling.json"
"$P" analyze testdata/traces/hta/trace_compare/test --diff-against testdata/traces/hta/trace_compare/base --diff-steps 1010 --json > "$out/analyze_diff.json"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$G" "$tmp" > /dev/null
root="$PWD"
(cd "$tmp" && "$P" diagnose throughput_change_point_step/train.log checkpoint_stall_sync/train.log --json > "$root/$out/diagnose.json")
(cd "$tmp" && "$P" analyze memory_fragmentation_reserved_near_full/rank0.pt.trace.json --json > "$root/$out/analyze_memory.json")
printf 'name,submit_s,gpus,run_s,class,checkpoint_interval_s,restart_overhead_s\nexp-a,0,8,10000,experimental,1000,100\nexp-b,0,4,6000,experimental,1000,100\nprod-a,7500,8,2000,production,1000,100\nsmall,7600,2,300,experimental,,\nexp-c,8000,16,4000,experimental,1800,120\nprod-b,9000,4,500,production,,\n' > "$tmp/jobs.csv"
(cd "$tmp" && "$P" cluster --job-history jobs.csv --nodes 3 --gpu H100 --policy fifo,topo,topo-preempt,topo-defrag --min-run 600 --json > "$root/$out/cluster.json")
ls -l "$out"
