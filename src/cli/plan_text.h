// The human-readable text of a plan: the ranked table, where rules decided, and why #1 wins.
#pragma once

#include <optional>
#include <string>

#include "plan/planner.h"
#include "step/time_to_train.h"

namespace paratune::cli {

// The table's `MFU` is against the dense BF16 peak for every row, `own` against the row's
// precision (step/mfu.h). With a budget the table gains a `days` column (and `cost` with a price)
// and a line gives the time to train with #1.
std::string FormatPlan(const PlanResult& result, const PlanRequest& request,
                       const std::optional<TrainingBudget>& budget = std::nullopt);

}  // namespace paratune::cli
