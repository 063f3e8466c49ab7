#include "step/simulate_request.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "step/simulate_json.h"

namespace paratune {

StepResult RunSimulate(const Scenario& s, const SimulateRequest& r) {
  ComposeOptions co;
  co.record_timeline = r.record_events || r.timeline;
  // The report's Gantt draws every micro-batch of a step up to 1,024 (64 stages x 1,024
  // micro-batches is the size it is built for); the composer's op bound still applies.
  if (r.timeline) co.full_simulation_micro_batches = std::max<int64_t>(co.full_simulation_micro_batches, 1024);
  return ComposeStep(s.model, s.cluster, s.training, s.layout, EstimateOptions{s.rules, {}}, co);
}

nlohmann::json SimulatedJson(const StepResult& step, const SimulateRequest& r, const std::string& trace_path) {
  return SimulateToJson(SimulateDocumentOf(step, trace_path, r.timeline));
}

}  // namespace paratune
