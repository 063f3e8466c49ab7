// The JSON form of an Estimate, schema "paratune.estimate/1" (docs/json.md). Field names carry
// their unit (_s, _bytes, _per_s); values are SI.
#pragma once

#include <nlohmann/json.hpp>

#include "step/estimate.h"

namespace paratune {

inline constexpr const char* kEstimateSchema = "paratune.estimate/1";

nlohmann::json LayoutToJson(const Layout& l, const Training& t);
// The step-time terms (kStepTerms) and their total.
nlohmann::json TimeBreakdownToJson(const TimeBreakdown& t);
nlohmann::json EstimateToJson(const Estimate& e);

}  // namespace paratune
