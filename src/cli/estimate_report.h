// The human-readable report of an Estimate.
#pragma once

#include <string>

#include "step/estimate.h"

namespace paratune::cli {

std::string FormatEstimate(const Estimate& e, const ClusterSpec& cluster);

}  // namespace paratune::cli
