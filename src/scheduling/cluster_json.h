// The outputs of `paratune cluster`: the paratune.cluster/1 JSON document (docs/json.md), the
// time series CSV of utilisation and queue length, the per-job CSV, and the Chrome-trace file
// of placements over time (one process per policy, one track per node). Built from one
// ClusterRun; every writer derives its columns from one list.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "scheduling/replay.h"
#include "scheduling/topology.h"

namespace paratune {

struct PolicyRun {
  std::string policy;
  ReplayResult result;
};

struct ClusterRun {
  const ClusterTopology* topology = nullptr;
  const JobTrace* trace = nullptr;  // the jobs replayed, and every row skipped (reader and cluster)
  ReplayOptions options;
  std::vector<PolicyRun> policies;
};

inline constexpr const char* kClusterSchema = "paratune.cluster/1";
// Skipped rows listed in the JSON (the count is always complete).
inline constexpr size_t kMaxSkippedListed = 1000;

nlohmann::json ClusterJson(const ClusterRun& run);
std::string SeriesCsv(const ClusterRun& run);
std::string JobsCsv(const ClusterRun& run);
std::string PlacementTraceText(const ClusterRun& run);

}  // namespace paratune
