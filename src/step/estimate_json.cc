#include <nlohmann/json.hpp>

#include "step/estimate_json.h"

namespace paratune {

using nlohmann::json;

namespace {
// Writes StackFields into a JSON object.
struct StackWriter {
  json& j;
  template <class T>
  void operator()(const char* key, const T& x) {
    j[key] = x;
  }
  template <class E, size_t N>
  void operator()(const char* key, const E& e, const EnumNames<E, N>& names) {
    j[key] = names.Name(e);
  }
};
}  // namespace

json StackToJson(const StackFeatures& s) {
  json j = json::object();
  StackWriter w{j};
  StackFields(s, w);
  return j;
}

json LayoutToJson(const Layout& l, const Training& t) {
  return json{
      {"tp", l.tp},
      {"pp", l.pp},
      {"vp", l.vp},
      {"cp", l.cp},
      {"ep", l.ep},
      {"etp", l.expert_tp()},
      {"dp", l.dp},
      {"sequence_parallel", l.sequence_parallel()},
      {"zero", l.zero},
      {"recompute", RecomputeName(l.recompute)},
      {"recompute_modules", l.recompute == Recompute::kSelective
                                ? (l.recompute_modules ? RecomputeModulesText(l.recompute_modules) : "core_attn")
                                : ""},
      {"fp8_activation_cache", l.fp8_activation_cache},
      {"fp8_attention", l.fp8_attention},
      {"micro_batch", l.mbs},
      {"overlap_grad_reduce", l.overlap_grad_reduce},
      {"overlap_param_gather", l.overlap_param_gather},
      {"grad_reduce_in_fp32", l.grad_reduce_in_fp32},
      {"overlap_tp_comm", l.overlap_tp_comm},
      {"overlap_pp_comm", l.overlap_pp_comm},
      {"overlap_ep_comm", l.overlap_ep_comm},
      {"expert_imbalance", l.expert_imbalance},
      {"flash_attention", l.flash_attention},
      {"attention_kernel", AttentionKernelName(l.attention_kernel)},
      {"cp_comm", CpCommName(l.cp_comm)},
      {"fused_cross_entropy", l.fused_cross_entropy},
      {"cached_wgrad_placeholders", l.cached_wgrad_placeholders},
      {"zero3_per_tensor", l.zero3_per_tensor},
      {"fp32_shards", l.fp32_shards},
      {"optimizer_states", OptimizerStatesName(l.optimizer_states)},
      {"offload_layers", l.offload_layers},
      {"pp_layout", l.pp_layout},
      {"schedule", ScheduleName(l.pipeline_schedule())},
      {"stack", StackToJson(l.stack)},
      {"seq_len", t.seq},
      {"global_batch", t.global_batch},
      {"precision", PrecisionName(t.precision)}};
}

static json MemoryToJson(const MemoryBreakdown& m) {
  json j = json::object();
  for (const MemoryTerm& term : kMemoryTerms) j[std::string(term.key) + "_bytes"] = m.*term.value;
  j["allocated_bytes"] = m.allocated();
  j["total_bytes"] = m.total();
  return j;
}

json TimeBreakdownToJson(const TimeBreakdown& t) {
  json j = json::object();
  for (const StepTerm& term : kStepTerms) j[term.key] = t.*term.value;
  j["total_s"] = t.total();
  return j;
}

void AddMfuMembers(json& j, const Estimate& e) {
  j["mfu"] = e.mfu;
  j["mfu_vs_bf16_peak"] = e.mfu_vs_bf16;
}

namespace {

// "communication": one object per collective of the step.
json CommsToJson(const std::vector<CommItem>& items) {
  json comms = json::array();
  for (const CommItem& c : items)
    comms.push_back({{"kind", c.kind},
                     {"op", c.op},
                     {"group_size", c.group_size},
                     {"crosses_nvlink_domain", c.crosses_domain},
                     {"bytes_per_call", c.bytes_per_call},
                     {"calls_per_step", c.calls_per_step},
                     {"time_per_call_s", c.time_per_call_s},
                     {"total_s", c.total_s},
                     {"exposed_s", c.exposed_s}});
  return comms;
}

// "links": the busiest stage's load on each link.
json LinksToJson(const std::vector<LinkLoad>& loads) {
  json links = json::array();
  for (const LinkLoad& ld : loads)
    links.push_back({{"link", ld.link},
                     {"stage", ld.stage},
                     {"busy_s", ld.busy_s},
                     {"utilisation", ld.utilisation},
                     {"in_stage_forward_s", ld.forward_s},
                     {"in_stage_backward_s", ld.backward_s},
                     {"pp_s", ld.pp_s},
                     {"dp_s", ld.dp_s},
                     {"bottleneck", ld.utilisation >= kLinkBottleneckUtilisation}});
  return links;
}

// "stages": each pipeline stage's layers, pass times and memory.
json StagesToJson(const std::vector<StageEstimate>& list) {
  json stages = json::array();
  for (const StageEstimate& s : list)
    stages.push_back({{"stage", s.index},
                      {"dense_layers", s.dense_layers},
                      {"moe_layers", s.moe_layers},
                      {"embedding", s.has_embedding},
                      {"logits", s.has_logits},
                      {"forward_s", s.forward_s},
                      {"backward_s", s.backward_s},
                      {"compute_s", s.compute_s},
                      {"weight_grad_s", s.weight_grad_s},
                      {"grad_reduce_s", s.grad_reduce_s},
                      {"param_gather_s", s.param_gather_s},
                      {"optimizer_s", s.optimizer_s},
                      {"inflight_microbatches", s.inflight_microbatches},
                      {"params", s.params},
                      {"memory", MemoryToJson(s.memory)}});
  return stages;
}

}  // namespace

json EstimateToJson(const Estimate& e, const std::optional<TrainingBudget>& budget) {
  json j;
  j["schema"] = kEstimateSchema;
  j["model"] = {{"name", e.model}, {"total_params", e.total_params}, {"active_params", e.active_params}};
  j["cluster"] = {{"gpu", e.gpu}, {"gpus", e.gpus}, {"nodes", e.nodes}};
  j["p2p_time_s"] = e.p2p_time_s;
  j["layout"] = LayoutToJson(e.layout, e.training);
  j["micro_batches"] = e.micro_batches;
  j["throughput"] = {{"step_time_s", e.step_time_s},
                     {"tokens_per_s", e.tokens_per_s},
                     {"tokens_per_s_per_gpu", e.tokens_per_s_per_gpu},
                     {"model_tflops_per_gpu", e.model_tflops_per_gpu},
                     {"model_flops_per_step", e.model_flops_per_step},
                     {"hardware_flops_per_step", e.hardware_flops_per_step},
                     {"hfu", e.hfu},
                     {"comm_share", e.comm_share},
                     {"bubble_rate", e.bubble_rate}};
  AddMfuMembers(j["throughput"], e);
  j["time_to_train"] = TimeToTrainToJson(budget, e);
  j["time"] = TimeBreakdownToJson(e.time);
  j["critical_stage"] = e.critical_stage;
  j["end_stage"] = e.end_stage;
  j["communication"] = CommsToJson(e.comms);
  j["links"] = LinksToJson(e.links);
  j["stages"] = StagesToJson(e.stages);
  j["memory"] = {{"peak_stage", e.peak_stage},
                 {"peak_bytes", e.peak_memory_bytes},
                 {"capacity_bytes", e.capacity_bytes},
                 {"fits", e.fits}};
  j["warnings"] = e.warnings;
  return j;
}

}  // namespace paratune
