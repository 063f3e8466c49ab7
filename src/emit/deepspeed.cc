// DeepSpeed JSON config. Keys from deepspeed/runtime/constants.py (batch, bf16),
// deepspeed/runtime/zero/config.py (zero_optimization), deepspeed/runtime/activation_checkpointing/
// config.py, deepspeed/runtime/tensor_parallel/config.py (AutoTP training, "tensor_parallel") and
// deepspeed/runtime/config.py (pipeline); the commit is in docs/frameworks.md.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "emit/emit.h"

namespace paratune {

namespace {

// The parallel dimensions: AutoTP and the pipeline engine in the config, the rest as notes (set
// in the model code).
void EmitDeepSpeedParallelism(const ModelSpec& m, const Layout& l, nlohmann::ordered_json& j, Emitted& out) {
  if (l.tp > 1) {
    j["tensor_parallel"] = {{"autotp_size", l.tp}};
    out.notes.push_back(
        fmt::format("tp {}: DeepSpeed AutoTP training (tensor_parallel.autotp_size); "
                    "Megatron-DeepSpeed instead takes --tensor-model-parallel-size",
                    l.tp));
    if (l.sequence_parallel())
      out.notes.push_back("AutoTP has no Megatron-style sequence parallelism: activations are replicated over TP");
  }
  if (l.pp > 1) {
    j["pipeline"] = {{"stages", l.pp}, {"partition", "uniform"}};
    out.notes.push_back(
        fmt::format("pp {}: needs the model wrapped in deepspeed.pipe.PipelineModule(num_stages={})", l.pp, l.pp));
  }
  if (l.vp > 1) out.notes.push_back(fmt::format("vp {}: DeepSpeed has no interleaved pipeline schedule", l.vp));
  if (!l.pp_layout.empty() || l.pipeline_schedule() == ScheduleKind::kZbH1)
    out.notes.push_back(
        "the pipeline split and schedule are set in the model code (DeepSpeed PipelineModule "
        "partition_method and its 1F1B TrainSchedule), not in this config; zb-h1 has no DeepSpeed "
        "schedule");
  if (l.cp > 1)
    out.notes.push_back(
        fmt::format("cp {}: no config key; DeepSpeed-Ulysses sequence parallelism is set in "
                    "code (sequence_parallel_size) and differs from ring attention",
                    l.cp));
  if (m.is_moe() && l.ep > 1)
    out.notes.push_back(
        fmt::format("ep {}: DeepSpeed-MoE takes ep_size in deepspeed.moe.layer.MoE(...), "
                    "not in the config",
                    l.ep));
}

// The precisions DeepSpeed's config has no key for (runtime/constants.py: fp16, bf16 only): the
// recipe is the model code's, the one paratune gives every framework (emit.h).
void NoteDeepSpeedPrecision(Precision p, Emitted& out) {
  if (p == Precision::kFp8)
    out.notes.push_back(
        fmt::format("fp8 GEMMs come from Transformer Engine in the model code, with the recipe "
                    "{} (Megatron-LM's --fp8-format {} --fp8-recipe {}); the config enables BF16 only",
                    kTransformerEngineFp8Recipe, kMegatronFp8Format, kMegatronFp8Recipe));
  else if (p == Precision::kFp4)
    out.notes.push_back(
        fmt::format("fp4 GEMMs come from Transformer Engine in the model code (NVFP4, Megatron-LM's "
                    "--fp4-recipe {}); the config enables BF16 only",
                    kMegatronFp4Recipe));
}

}  // namespace

Emitted EmitDeepSpeed(const EmitInput& in) {
  const ModelSpec& m = in.model;
  const Layout& l = in.layout;
  const Training& t = in.training;
  Emitted out;
  nlohmann::ordered_json j;
  // DeepSpeed checks train_batch_size == micro * accumulation * data-parallel world size
  // (runtime/config.py _batch_assertion); the data-parallel world is paratune's dp.
  const int64_t accumulation = t.global_batch / (static_cast<int64_t>(l.dp) * l.mbs);
  j["train_batch_size"] = t.global_batch;
  j["train_micro_batch_size_per_gpu"] = l.mbs;
  j["gradient_accumulation_steps"] = accumulation;
  // FP16 uses DeepSpeed's dynamic loss scaling (loss_scale 0, runtime/fp16 defaults).
  if (t.precision == Precision::kFp16)
    j["fp16"] = {{"enabled", true}, {"loss_scale", 0}};
  else
    j["bf16"] = {{"enabled", true}};
  nlohmann::ordered_json z;
  z["stage"] = l.zero;
  z["overlap_comm"] = l.overlap_grad_reduce;
  z["contiguous_gradients"] = true;
  z["reduce_scatter"] = true;
  j["zero_optimization"] = z;
  if (l.recompute == Recompute::kFull) {
    j["activation_checkpointing"] = {{"partition_activations", l.sequence_parallel()},
                                     {"contiguous_memory_optimization", false},
                                     {"number_checkpoints", m.layers / l.pp}};
    out.notes.push_back(
        "activation_checkpointing takes effect where the model calls "
        "deepspeed.checkpointing.checkpoint on each layer (Megatron-DeepSpeed does)");
  } else if (l.recompute == Recompute::kSelective) {
    out.notes.push_back(
        "DeepSpeed's activation checkpointing is per layer: selective (attention-core) "
        "recomputation cannot be expressed; emitted none");
  }
  EmitDeepSpeedParallelism(m, l, j, out);
  NoteDeepSpeedPrecision(t.precision, out);
  out.notes.push_back(
      "the DeepSpeed config carries no model: the model is the nn.Module given to "
      "deepspeed.initialize (only activation_checkpointing.number_checkpoints, layers per stage, "
      "depends on it)");
  out.text = j.dump(2) + "\n";
  return out;
}

}  // namespace paratune
