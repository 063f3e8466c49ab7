#include "step/estimate_json.h"

namespace paratune {

using nlohmann::json;

json LayoutToJson(const Layout& l, const Training& t) {
  return json{{"tp", l.tp},
              {"pp", l.pp},
              {"vp", l.vp},
              {"cp", l.cp},
              {"ep", l.ep},
              {"etp", l.expert_tp()},
              {"dp", l.dp},
              {"sequence_parallel", l.sequence_parallel()},
              {"zero", l.zero},
              {"recompute", RecomputeName(l.recompute)},
              {"micro_batch", l.mbs},
              {"overlap_grad_reduce", l.overlap_grad_reduce},
              {"overlap_param_gather", l.overlap_param_gather},
              {"overlap_tp_comm", l.overlap_tp_comm},
              {"overlap_pp_comm", l.overlap_pp_comm},
              {"flash_attention", l.flash_attention},
              {"zero3_per_tensor", l.zero3_per_tensor},
              {"pp_layout", l.pp_layout},
              {"seq_len", t.seq},
              {"global_batch", t.global_batch},
              {"precision", PrecisionName(t.precision)}};
}

static json MemoryToJson(const MemoryBreakdown& m) {
  return json{{"params_bytes", m.params},
              {"grads_bytes", m.grads},
              {"optimizer_bytes", m.optimizer},
              {"fp8_weights_bytes", m.fp8_weights},
              {"zero3_buffers_bytes", m.zero3_buffers},
              {"activations_bytes", m.activations},
              {"logits_bytes", m.logits},
              {"runtime_bytes", m.runtime},
              {"fragmentation_bytes", m.fragmentation},
              {"total_bytes", m.total()}};
}

json EstimateToJson(const Estimate& e) {
  json j;
  j["schema"] = kEstimateSchema;
  j["model"] = {{"name", e.model}, {"total_params", e.total_params}, {"active_params", e.active_params}};
  j["cluster"] = {{"gpu", e.gpu}, {"gpus", e.gpus}, {"nodes", e.nodes}};
  j["layout"] = LayoutToJson(e.layout, e.training);
  j["micro_batches"] = e.micro_batches;
  j["throughput"] = {{"step_time_s", e.step_time_s},
                     {"tokens_per_s", e.tokens_per_s},
                     {"tokens_per_s_per_gpu", e.tokens_per_s_per_gpu},
                     {"model_tflops_per_gpu", e.model_tflops_per_gpu},
                     {"model_flops_per_step", e.model_flops_per_step},
                     {"hardware_flops_per_step", e.hardware_flops_per_step},
                     {"mfu", e.mfu},
                     {"hfu", e.hfu},
                     {"mfu_vs_bf16_peak", e.mfu_vs_bf16},
                     {"comm_share", e.comm_share},
                     {"bubble_rate", e.bubble_rate}};
  const TimeBreakdown& t = e.time;
  j["time"] = {{"compute_s", t.compute_s},     {"recompute_s", t.recompute_s},
               {"tp_comm_s", t.tp_s},          {"cp_comm_s", t.cp_s},
               {"ep_comm_s", t.ep_s},          {"pp_comm_s", t.pp_s},
               {"dp_comm_s", t.dp_s},          {"bubble_s", t.bubble_s},
               {"optimizer_s", t.optimizer_s}, {"other_s", t.other_s},
               {"total_s", t.total()}};
  json comms = json::array();
  for (const CommItem& c : e.comms)
    comms.push_back({{"kind", c.kind},
                     {"op", c.op},
                     {"group_size", c.group_size},
                     {"crosses_nvlink_domain", c.crosses_domain},
                     {"bytes_per_call", c.bytes_per_call},
                     {"calls_per_step", c.calls_per_step},
                     {"time_per_call_s", c.time_per_call_s},
                     {"total_s", c.total_s},
                     {"exposed_s", c.exposed_s}});
  j["communication"] = comms;
  json stages = json::array();
  for (const StageEstimate& s : e.stages)
    stages.push_back({{"stage", s.index},
                      {"dense_layers", s.dense_layers},
                      {"moe_layers", s.moe_layers},
                      {"embedding", s.has_embedding},
                      {"logits", s.has_logits},
                      {"forward_s", s.forward_s},
                      {"backward_s", s.backward_s},
                      {"compute_s", s.compute_s},
                      {"inflight_microbatches", s.inflight_microbatches},
                      {"params", s.params},
                      {"memory", MemoryToJson(s.memory)}});
  j["stages"] = stages;
  j["memory"] = {{"peak_stage", e.peak_stage},
                 {"peak_bytes", e.peak_memory_bytes},
                 {"capacity_bytes", e.capacity_bytes},
                 {"fits", e.fits}};
  j["warnings"] = e.warnings;
  return j;
}

}  // namespace paratune
