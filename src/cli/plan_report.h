// The human-readable report of a plan: the ranked table, where rules decided, and why #1 wins.
#pragma once

#include <string>

#include "plan/planner.h"

namespace paratune::cli {

std::string FormatPlan(const PlanResult& result, const PlanRequest& request);

}  // namespace paratune::cli
