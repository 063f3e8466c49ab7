#include <nlohmann/json.hpp>

#include "step/simulate_json.h"

#include "pipeline/closed_form.h"
#include "step/estimate_json.h"

namespace paratune {

ClosedFormReference ClosedFormOf(const Estimate& e) {
  std::vector<double> rank_s;
  for (const StageEstimate& st : e.stages) rank_s.push_back(st.forward_s + st.backward_s);
  const PipelineTime p = ClosedFormPipeline(rank_s, e.micro_batches, e.layout.vp);
  return {p.ideal_s, p.bubble_s};
}

nlohmann::json SimulateToJson(const StepResult& r, const std::string& trace) {
  const Estimate& e = r.estimate;
  const SimulationResult& sim = r.simulation;
  nlohmann::json stages = nlohmann::json::array();
  for (size_t k = 0; k < sim.stages.size(); ++k) {
    const StageFigures& g = sim.stages[k];
    const StageEstimate& st = e.stages[k];
    stages.push_back({{"stage", k},
                      {"forward_s", st.forward_s},
                      {"backward_s", st.backward_s},
                      {"weight_grad_s", st.weight_grad_s},
                      {"grad_reduce_s", st.grad_reduce_s},
                      {"param_gather_s", st.param_gather_s},
                      {"optimizer_s", st.optimizer_s},
                      {"compute_s", g.time.compute_s},
                      {"comm_s", g.time.comm_s},
                      {"non_compute_s", g.time.non_compute_s},
                      {"dp_non_compute_s", g.dp_non_compute_s},
                      {"idle_s", g.time.idle_s},
                      {"idle_pct", g.time.idle_pct()},
                      {"peak_inflight", g.peak_inflight},
                      {"peak_inflight_microbatches", g.peak_inflight_microbatches},
                      {"peak_pending_weight_grads", g.peak_pending_weight_grads}});
  }
  const ClosedFormReference cf = ClosedFormOf(e);
  const Layout& l = e.layout;
  return {{"schema", kSimulateSchema},
          {"model", e.model},
          {"gpu", e.gpu},
          {"gpus", e.gpus},
          {"layout", LayoutToJson(l, e.training)},
          {"schedule", e.schedule},
          {"micro_batches", e.micro_batches},
          {"simulated_micro_batches", r.simulated_micro_batches},
          {"extrapolated", r.extrapolated},
          {"p2p_time_s", e.p2p_time_s},
          {"step_time_s", sim.step_time_s},
          {"pipeline_time_s", sim.pipeline_time_s},
          {"closed_form_reference", {{"ideal_s", cf.ideal_s}, {"bubble_s", cf.bubble_s}}},
          {"time", TimeBreakdownToJson(e.time)},
          {"trace", trace.empty() ? nlohmann::json(nullptr) : nlohmann::json(trace)},
          {"stages", std::move(stages)}};
}

nlohmann::json TimelineToJson(const Timeline& t) {
  nlohmann::json events = nlohmann::json::array();
  for (const TimelineEvent& e : t.events)
    events.push_back({e.rank, e.stream, PhaseName(e.phase), e.micro_batch, e.start_s, e.end_s()});
  return {{"stages", t.ranks},
          {"streams", t.stream_names},
          {"columns", {"stage", "stream", "phase", "micro_batch", "start_s", "end_s"}},
          {"events", std::move(events)}};
}

}  // namespace paratune
