// The JSON form of a plan, schema "paratune.plan/1" (docs/json.md).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>

#include "plan/planner.h"
#include "plan/sweep.h"
#include "step/time_to_train.h"

namespace paratune {

inline constexpr const char* kPlanSchema = "paratune.plan/1";

// With a budget, every `ranked[]` entry and the `winner` carry `time_to_train` (null without).
nlohmann::json PlanToJson(const PlanResult& result, const PlanRequest& request,
                          const std::optional<TrainingBudget>& budget = std::nullopt);

// The "sweep" member `plan --sweep KNOB --json` adds: {"knob", "points": [{"value", "fits",
// "tokens_per_s_per_gpu", "mfu", "step_time_s", "peak_memory_bytes", "layout"} or {"value",
// "fits": false, "reason"}]}.
nlohmann::json SweepToJson(const SweepResult& sweep);

}  // namespace paratune
