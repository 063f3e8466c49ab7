// The JSON form of an Estimate, schema "paratune.estimate/1" (docs/json.md). Field names carry
// their unit (_s, _bytes, _per_s); values are SI.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>

#include "step/estimate.h"
#include "step/time_to_train.h"

namespace paratune {

inline constexpr const char* kEstimateSchema = "paratune.estimate/1";

nlohmann::json LayoutToJson(const Layout& l, const Training& t);
// The step-time terms (kStepTerms) and their total.
nlohmann::json TimeBreakdownToJson(const TimeBreakdown& t);
// The two MFUs (step/mfu.h) as members of `j`: `mfu` (own precision's peak) and
// `mfu_vs_bf16_peak`; the estimate's `throughput` and the plan's `ranked[]` both take them here.
void AddMfuMembers(nlohmann::json& j, const Estimate& e);
// With a budget, `time_to_train` is the time to train it at this estimate's throughput
// (step/time_to_train.h); without one it is null.
nlohmann::json EstimateToJson(const Estimate& e, const std::optional<TrainingBudget>& budget = std::nullopt);

}  // namespace paratune
