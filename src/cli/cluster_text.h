// The readable summary of `paratune cluster`: the cluster and trace in two lines, then one
// column per policy, side by side, one row per figure.
#pragma once

#include <string>

#include "scheduling/cluster_json.h"

namespace paratune::cli {

std::string FormatClusterSummary(const ClusterRun& run);

}  // namespace paratune::cli
