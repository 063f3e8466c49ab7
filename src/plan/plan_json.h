// The JSON form of a plan, schema "paratune.plan/1" (docs/json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "plan/planner.h"

namespace paratune {

inline constexpr const char* kPlanSchema = "paratune.plan/1";

nlohmann::json PlanToJson(const PlanResult& result, const PlanRequest& request);

}  // namespace paratune
