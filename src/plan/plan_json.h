// The JSON form of a plan, schema "paratune.plan/1" (docs/json.md), written and read back from
// one field list per struct (plan/plan_json.cc over step/estimate_fields.h).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "plan/planner.h"
#include "plan/sweep.h"
#include "step/time_to_train.h"
#include "util/json_fields.h"

namespace paratune {

inline constexpr const char* kPlanSchema = "paratune.plan/1";

// A plan document: the request it answers (model, cluster, training, search settings), the
// search's result and, with --sweep, the best layout per value of the knob. Read back, each
// `result.ranked` Estimate holds what its row gives (layout, step time, tokens/s per GPU, the
// MFUs, peak memory, exposed communication and bubble shares, the step-time terms); `winner`
// is the first one's whole estimate.
struct PlanDocument {
  std::string model;
  double total_params = 0;
  double active_params = 0;
  std::string gpu;
  int gpus = 0;
  int nodes = 0;
  int64_t seq_len = 0;
  int64_t global_batch = 0;
  std::string precision;  // a precision's name, or "any" (every precision searched)
  Objective objective = Objective::kThroughput;
  double headroom = 0;
  nlohmann::json pinned = nlohmann::json::object();  // the request's pins and bounds (written only)
  nlohmann::json bounds = nlohmann::json::object();
  PlanResult result;
  Estimate winner;
  std::optional<TrainingBudget> budget;  // with one, rows and winner carry time_to_train (written only)
  std::optional<SweepResult> sweep;
};

// The document of `result` for `request`.
PlanDocument PlanDocumentOf(const PlanResult& result, const PlanRequest& request,
                            const std::optional<TrainingBudget>& budget = std::nullopt,
                            const std::optional<SweepResult>& sweep = std::nullopt);
nlohmann::json PlanToJson(const PlanDocument& plan);
// With a budget, every `ranked[]` entry and the `winner` carry `time_to_train` (null without);
// with a sweep, the document has its "sweep" member: {"knob", "points": [{"value", "fits",
// "tokens_per_s_per_gpu", "mfu", "step_time_s", "peak_memory_bytes", "layout"} or {"value",
// "fits": false, "reason"}]}.
nlohmann::json PlanToJson(const PlanResult& result, const PlanRequest& request,
                          const std::optional<TrainingBudget>& budget = std::nullopt,
                          const std::optional<SweepResult>& sweep = std::nullopt);
// The document back; throws InputError naming the file (`where`) and field.
PlanDocument PlanFromJson(const nlohmann::json& doc, const std::string& where);

}  // namespace paratune
