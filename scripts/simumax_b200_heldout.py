#!/usr/bin/env python3
"""Writes testdata/validation/simumax_b200_heldout.csv: the measured B200 runs of SimuMax's
v1.2 release that are in neither development file, in the schema of
../shared/validation/simumax_runs_dev.csv, for held-out validation (docs/validation.md,
"Held out: SimuMax's other B200 runs"). Nothing is fitted on them.

Source: MooreThreads/SimuMax at 4dcaae513ba7679d56c116a17cd4a691ec41e252 (Apache License 2.0),
docs/b200/b200_release_v1.2_summary.json (real_ms, real_alloc_gib, perf_ms, perf_alloc_gib per
case). Usage: scripts/simumax_b200_heldout.py SUMMARY_JSON > testdata/validation/simumax_b200_heldout.csv
(SUMMARY_JSON: `git show 4dcaae51:docs/b200/b200_release_v1.2_summary.json` of that repository).

Left out: the 405B-shaped 4-layer cases (already in simumax_runs_dev.csv). The DeepSeek-V3 cases
are cut to 1 dense + 3 MoE layers where the model's config has 3 dense layers first: the extra
column `dense_layers` (read by paratune's validate) says so.
"""
import csv
import json
import re
import sys

COLUMNS = ("id,source,table_or_section,model,arch,layers,hidden,ffn_hidden,heads,kv_heads,vocab,seq_len,"
           "num_experts,topk,gpu,gpu_type,num_gpus,gpus_per_node,tp,pp,vp,dp,cp,ep,sp,zero_stage_or_fsdp,"
           "micro_batch,global_batch,recompute,precision,precision_raw,measured_metric,measured_value,"
           "target_tokens_per_s_per_gpu,target_step_time_s,derivation,cross_check,confidence,flags,notes,"
           "measured_peak_mem_gib,simumax_pred_step_time_s,simumax_pred_mem_gib,layers_note,config_source,"
           "hf_model,dense_layers").split(",")

STACK = ("no recompute (Megatron --recompute-num-layers 0), distributed optimizer, SP when TP>1, fp32 grad "
         "accumulation/reduction, no TP/PP comm overlap, mock data; stack: NGC PyTorch 26.01 family (torch "
         "2.10a0), TE 2.11.0, Megatron-LM 23e00ed0, CUDA 13.1; '_cef' cases: cross-entropy loss fusion on")
MODELS = {
    "llama3_70b": dict(model="Llama3-70B (12-layer cut)", arch="dense", hidden=8192, ffn_hidden=28672, heads=64,
                       kv_heads=8, vocab=128256, hf_model="meta-llama/Llama-3.1-70B", full_layers=80,
                       script="run_pretrain_llama3.sh", config="configs/models/llama3-70b.json", notes=""),
    "deepseekv2": dict(model="DeepSeek-V2 236B (4-layer cut)", arch="moe", hidden=5120, ffn_hidden=1536, heads=128,
                       kv_heads="", vocab=102400, num_experts=160, topk=6, hf_model="deepseek-ai/DeepSeek-V2",
                       full_layers=60, script="run_pretrain_deepseekv2.sh", config="configs/models/deepseekv2.json",
                       notes="1 dense + 3 MoE layers; MLA; 160 routed experts top-6, 2 shared; expert capacity "
                             "factor 1 with pad-to-capacity; alltoall dispatcher, grouped GEMM, permute fusion; "),
    "deepseekv3": dict(model="DeepSeek-V3 671B (4-layer cut, 1 dense layer)", arch="moe", hidden=7168, ffn_hidden=2048,
                       heads=128, kv_heads="", vocab=129280, num_experts=256, topk=8, hf_model="deepseek-ai/DeepSeek-V3",
                       full_layers=61, script="run_pretrain_deepseekv2.sh", config="configs/models/deepseekv3.json",
                       dense_layers=1,
                       notes="1 dense + 3 MoE layers (the release: 'DeepSeekV3 formal rows use dense_layers=1'); MLA; "
                             "256 routed experts top-8, 1 shared; expert capacity factor 1 with pad-to-capacity; "
                             "alltoall dispatcher, grouped GEMM, permute fusion; no MTP; "),
}


def main():
    summary = json.load(open(sys.argv[1]))
    out = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
    out.writeheader()
    n = 0
    for row in summary["rows"]:
        case = row["case"]
        if row.get("status") != "ok":
            continue
        if case.startswith("llama3_405b") and "_cp" not in case:
            continue
        key = next(k for k in MODELS if case.startswith(k)) if not case.startswith("llama3_405b") else "llama3_405b"
        dims = {k: int(v) for k, v in re.findall(r"_(tp|pp|dp|ep|cp|l|mbc|seq)(\d+)", "_" + case)}
        tp, pp, dp = dims["tp"], dims["pp"], dims["dp"]
        cp, ep, seq = dims.get("cp", 1), dims.get("ep", 1), dims.get("seq", 4096)
        gbs = row["mbc"] * dp  # launcher rule: mbs 1 x mbc x dp
        step_s = row["real_ms"] / 1000
        if key == "llama3_405b":
            m = dict(model="Llama3-405B-shaped (4-layer cut, 16 KV heads)", arch="dense", hidden=16384,
                     ffn_hidden=53248, heads=128, kv_heads=16, vocab=128256, hf_model="", full_layers=126,
                     script="run_pretrain_llama3.sh", config="configs/models/llama3-405b_padding_128.json",
                     notes="405B shape with 16 query groups; ")
        else:
            m = MODELS[key]
        n += 1
        cp_note = ("context parallelism with --cp-comm-type a2a (all-to-all over heads, the summary's 'CP long-seq "
                   "a2a' rows); " if cp > 1 else "")
        out.writerow({
            "id": f"SIMUMAX-B200-HO-{n:02d}", "source": "SimuMax-B200-release-v1.2",
            "table_or_section": f"docs/b200/b200_release_v1.2_summary.json formal rows, case {case}",
            "model": m["model"], "arch": m["arch"], "layers": row["layer_num"], "hidden": m["hidden"],
            "ffn_hidden": m["ffn_hidden"], "heads": m["heads"], "kv_heads": m["kv_heads"], "vocab": m["vocab"],
            "seq_len": seq, "num_experts": m.get("num_experts", ""), "topk": m.get("topk", ""), "gpu": "B200",
            "gpu_type": "B200-SXM (one 8-GPU node, NVLink)", "num_gpus": 8, "gpus_per_node": 8, "tp": tp, "pp": pp,
            "vp": 1, "dp": dp, "cp": cp, "ep": ep, "sp": "yes" if tp > 1 else "no",
            "zero_stage_or_fsdp": "distributed optimizer (ZeRO-1-like)", "micro_batch": 1, "global_batch": gbs,
            "recompute": "none", "precision": "bf16", "precision_raw": "bf16", "measured_metric": "step_time_s",
            "measured_value": f"{step_s:.4f}",
            "target_tokens_per_s_per_gpu": f"{gbs * seq / (step_s * 8):.1f}", "target_step_time_s": f"{step_s:.4f}",
            "derivation": "global_batch*seq_len/(step_time*num_gpus); step_time = real_ms (the smaller of Megatron "
                          "elapsed-time-per-iteration at iterations 2 and 3, last rank); global_batch = mbs 1 x mbc x dp",
            "cross_check": f"SimuMax rel_err_pct {row['rel_err_pct']}", "confidence": "medium",
            "flags": f"info:reduced_layers({row['layer_num']}_of_{m['full_layers']});info:held_out",
            "notes": m["notes"] + cp_note + STACK, "measured_peak_mem_gib": row["real_alloc_gib"],
            "simumax_pred_step_time_s": f"{row['perf_ms'] / 1000:.5f}", "simumax_pred_mem_gib": row["perf_alloc_gib"],
            "layers_note": f"reduced to {row['layer_num']} of {m['full_layers']} layers",
            "config_source": f"MooreThreads/SimuMax@4dcaae51: docs/b200/b200_release_v1.2_summary.json; {m['config']}; "
                             f"configs/system/b200_bf16_ceperm.json; simu_tools/megatron_scripts/scripts/{m['script']}",
            "hf_model": m["hf_model"], "dense_layers": m.get("dense_layers", ""),
        })


if __name__ == "__main__":
    main()
