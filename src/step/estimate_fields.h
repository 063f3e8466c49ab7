// The field lists of paratune.estimate/1 (docs/json.md), each struct's fields once, as function
// templates over a visitor (util/json_two_way.h): JsonWriter writes them, JsonReader reads them
// back. step/estimate_json.cc writes and reads the estimate with them; the plan and simulate
// documents reuse the layout, time and MFU lists for their own members. `T` is const when
// writing. Fields marked kLater joined the schema after its first documents (the layout of
// testdata/report/estimate.json predates them): a document without them reads with the default.
// Totals and shares are derived, written only.
#pragma once

#include <optional>
#include <string>
#include <type_traits>

#include "step/estimate.h"
#include "step/estimate_json.h"
#include "step/time_to_train.h"
#include "util/json_two_way.h"

namespace paratune::estimate_fields {

inline constexpr Presence kLater = Presence::kLater;

// Whether a field list runs for JsonReader (the struct is not const).
template <class T>
inline constexpr bool kReading = !std::is_const_v<T>;

// The selective-recompute module list as Megatron names it ("" without selective
// recomputation; Megatron's default "core_attn" when none is given).
template <class L, class V>
void RecomputeModulesField(L& l, V& v) {
  std::string text = l.recompute != Recompute::kSelective ? ""
                     : l.recompute_modules                ? RecomputeModulesText(l.recompute_modules)
                                                          : "core_attn";
  v("recompute_modules", text, kLater);
  if constexpr (kReading<L>)
    l.recompute_modules = text.empty() ? 0 : ParseRecomputeModules(text, v.view().Where("recompute_modules"));
}

// The layout's parallel dimensions and micro-batch.
template <class L, class V>
void ParallelFields(L& l, V& v) {
  v("tp", l.tp);
  v("pp", l.pp);
  v("vp", l.vp);
  v("cp", l.cp);
  v("ep", l.ep);
  // etp and sequence_parallel are written as what they mean (etp = 0 is TP's; SP needs TP > 1)
  // and read back into the members that give it.
  int etp = l.expert_tp();
  v("etp", etp);
  v("dp", l.dp);
  bool sp = l.sequence_parallel();
  v("sequence_parallel", sp);
  v("zero", l.zero);
  v("micro_batch", l.mbs);
  v("pp_layout", l.pp_layout);
  ScheduleKind schedule = l.pipeline_schedule();  // the schedule it runs, chosen or not
  v("schedule", schedule, kScheduleNames);
  if constexpr (kReading<L>) {
    l.etp = etp;
    l.sp = sp;
    l.schedule = schedule;
  }
}

// Recomputation, precision tricks, overlap switches and kernels of the layout.
template <class L, class V>
void LayoutSwitchFields(L& l, V& v) {
  v("recompute", l.recompute, kRecomputeNames);
  RecomputeModulesField(l, v);
  v("fp8_activation_cache", l.fp8_activation_cache, kLater);
  v("fp8_attention", l.fp8_attention, kLater);
  v("overlap_grad_reduce", l.overlap_grad_reduce);
  v("overlap_param_gather", l.overlap_param_gather);
  v("grad_reduce_in_fp32", l.grad_reduce_in_fp32, kLater);
  v("overlap_tp_comm", l.overlap_tp_comm);
  v("overlap_pp_comm", l.overlap_pp_comm);
  v("overlap_ep_comm", l.overlap_ep_comm);
  v("expert_imbalance", l.expert_imbalance);
  v("flash_attention", l.flash_attention);
  v("attention_kernel", l.attention_kernel, kAttentionKernelNames, kLater);
  v("cp_comm", l.cp_comm, kCpCommNames, kLater);
  v("fused_cross_entropy", l.fused_cross_entropy);
  v("cached_wgrad_placeholders", l.cached_wgrad_placeholders);
  v("zero3_per_tensor", l.zero3_per_tensor);
  v("fp32_shards", l.fp32_shards, kLater);
  v("optimizer_states", l.optimizer_states, kOptimizerStatesNames, kLater);
  v("offload_layers", l.offload_layers, kLater);
  v.Nested(
      "stack", l.stack, [](auto& s, auto& w) { StackFields(s, w); }, kLater);
}

// The `layout` object: the layout with the training shape it runs.
template <class L, class Tr, class V>
void LayoutFields(L& l, Tr& t, V& v) {
  ParallelFields(l, v);
  LayoutSwitchFields(l, v);
  v("seq_len", t.seq);
  v("global_batch", t.global_batch);
  v("precision", t.precision, kPrecisionNames);
}

template <class T, class V>
void TimeFields(T& t, V& v) {
  for (const StepTerm& term : kStepTerms) v(term.key, t.*term.value, term.added ? kLater : Presence::kRequired);
  v.Derived("total_s", t.total());
}

template <class T, class V>
void CommFields(T& c, V& v) {
  v("kind", c.kind);
  v("op", c.op);
  v("group_size", c.group_size);
  v("crosses_nvlink_domain", c.crosses_domain);
  v("bytes_per_call", c.bytes_per_call);
  v("calls_per_step", c.calls_per_step);
  v("time_per_call_s", c.time_per_call_s);
  v("total_s", c.total_s);
  v("exposed_s", c.exposed_s);
}

// The busiest stage's load on one link.
template <class T, class V>
void LinkFields(T& ld, V& v) {
  v("link", ld.link);
  v("stage", ld.stage);
  v("busy_s", ld.busy_s);
  v("utilisation", ld.utilisation);
  v("in_stage_forward_s", ld.forward_s);
  v("in_stage_backward_s", ld.backward_s);
  v("pp_s", ld.pp_s);
  v("dp_s", ld.dp_s);
  v.Derived("bottleneck", ld.utilisation >= kLinkBottleneckUtilisation);
}

template <class T, class V>
void MemoryFields(T& m, V& v) {
  for (const MemoryTerm& term : kMemoryTerms) v((std::string(term.key) + "_bytes").c_str(), m.*term.value);
  v.Derived("allocated_bytes", m.allocated());
  v.Derived("total_bytes", m.total());
}

// One pipeline stage: its layers, pass times and memory.
template <class T, class V>
void StageFields(T& s, V& v) {
  v("stage", s.index);
  v("dense_layers", s.dense_layers);
  v("moe_layers", s.moe_layers);
  v("embedding", s.has_embedding);
  v("logits", s.has_logits);
  v("forward_s", s.forward_s);
  v("backward_s", s.backward_s);
  v("compute_s", s.compute_s);
  v("weight_grad_s", s.weight_grad_s);
  v("grad_reduce_s", s.grad_reduce_s);
  v("param_gather_s", s.param_gather_s);
  v("optimizer_s", s.optimizer_s);
  v("inflight_microbatches", s.inflight_microbatches);
  v("params", s.params);
  v.Nested("memory", s.memory, [](auto& m, auto& w) { MemoryFields(m, w); });
}

// The two MFUs (step/mfu.h): the estimate's `throughput` and the plan's `ranked[]` both hold them.
template <class T, class V>
void MfuFields(T& e, V& v) {
  v("mfu", e.mfu);
  v("mfu_vs_bf16_peak", e.mfu_vs_bf16);
}

template <class T, class V>
void ThroughputFields(T& e, V& v) {
  v("step_time_s", e.step_time_s);
  v("tokens_per_s", e.tokens_per_s);
  v("tokens_per_s_per_gpu", e.tokens_per_s_per_gpu);
  v("model_tflops_per_gpu", e.model_tflops_per_gpu);
  v("model_flops_per_step", e.model_flops_per_step);
  v("hardware_flops_per_step", e.hardware_flops_per_step);
  v("hfu", e.hfu);
  v("comm_share", e.comm_share);
  v("bubble_rate", e.bubble_rate);
  MfuFields(e, v);
}

// What the job is: the model and the cluster it runs on.
template <class T, class V>
void JobFields(T& e, V& v) {
  v.Nested("model", e, [](auto& x, auto& w) {
    w("name", x.model);
    w("total_params", x.total_params);
    w("active_params", x.active_params);
  });
  v.Nested("cluster", e, [](auto& x, auto& w) {
    w("gpu", x.gpu);
    w("gpus", x.gpus);
    w("nodes", x.nodes);
  });
}

template <class T, class V>
void EstimateFields(T& e, V& v) {
  JobFields(e, v);
  v("p2p_time_s", e.p2p_time_s);
  v.Nested("layout", e, [](auto& x, auto& w) { LayoutFields(x.layout, x.training, w); });
  v("micro_batches", e.micro_batches);
  v.Nested("throughput", e, [](auto& x, auto& w) { ThroughputFields(x, w); });
  v.Nested("time", e.time, [](auto& t, auto& w) { TimeFields(t, w); });
  v("critical_stage", e.critical_stage);
  v("end_stage", e.end_stage, kLater);
  v.List("communication", e.comms, [](auto& c, auto& w) { CommFields(c, w); });
  v.List("links", e.links, [](auto& l, auto& w) { LinkFields(l, w); });
  v.List("stages", e.stages, [](auto& s, auto& w) { StageFields(s, w); });
  v.Nested("memory", e, [](auto& x, auto& w) {
    w("peak_stage", x.peak_stage);
    w("peak_bytes", x.peak_memory_bytes);
    w("capacity_bytes", x.capacity_bytes);
    w("fits", x.fits);
  });
  v("warnings", e.warnings);
}

// A whole estimate document: its schema, its fields and, with a budget, its time to train
// (written only: the budget is the request's, step/time_to_train.h). A plan's winner is one.
template <class T, class V>
void WholeEstimateFields(T& e, V& v, const std::optional<TrainingBudget>& budget) {
  v.Derived("schema", kEstimateSchema);
  EstimateFields(e, v);
  if constexpr (!kReading<T>) v.Derived("time_to_train", TimeToTrainToJson(budget, e));
}

}  // namespace paratune::estimate_fields
