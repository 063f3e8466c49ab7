// The human-readable text of an Estimate.
#pragma once

#include <optional>
#include <string>

#include "step/estimate.h"
#include "step/time_to_train.h"

namespace paratune::cli {

// With a budget, a "Time to train" section follows the throughput.
std::string FormatEstimate(const Estimate& e, const ClusterSpec& cluster,
                           const std::optional<TrainingBudget>& budget = std::nullopt);

}  // namespace paratune::cli
