// Tests' CSV text in the schema of published_runs_dev.csv: its header row (the columns
// ReadPublishedRuns requires; the optional ones, such as hf_model, left out).
#pragma once

namespace paratune::test {

inline constexpr const char* kPublishedRunsHeader =
    "id,source,table_or_section,model,arch,layers,hidden,ffn_hidden,heads,kv_heads,vocab,seq_len,num_experts,"
    "topk,gpu,gpu_type,num_gpus,gpus_per_node,tp,pp,vp,dp,cp,ep,sp,zero_stage_or_fsdp,micro_batch,global_batch,"
    "recompute,precision,precision_raw,measured_metric,measured_value,target_tokens_per_s_per_gpu,"
    "target_step_time_s,derivation,cross_check,confidence,flags,notes\n";

}  // namespace paratune::test
