// Why the planner's first layout beats its second: which terms of the step (compute,
// recomputation, exposed communication by kind, bubble, optimizer) and of memory differ, with
// numbers, plus the recomputation verdict ("recompute none fits: ...").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "step/estimate.h"
#include "plan/plan_request.h"

namespace paratune {

// Short description of a layout: "tp 8, pp 1, cp 1, zero 1, recompute none, mbs 1, bf16".
std::string DescribeLayout(const Estimate& e);

// `ranked` is sorted best first (at least one entry). `best_none` is the best fitting layout
// without recomputation, if any; `min_none_need_bytes` the smallest peak memory among layouts
// without recomputation that did not fit (0 if none was tried).
std::vector<std::string> ExplainPlan(const std::vector<Estimate>& ranked, const PlanRequest& request,
                                     double memory_limit_bytes, const std::optional<Estimate>& best_none,
                                     double min_none_need_bytes);

}  // namespace paratune
