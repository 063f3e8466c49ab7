// The outputs of `paratune cluster`: the paratune.cluster/1 JSON document (docs/json.md), the
// time series CSV of utilisation and queue length, the per-job CSV, and the Chrome-trace file
// of placements over time (one process per policy, one track per node). Built from one
// ClusterRun; every writer derives its columns from one list. The JSON document is typed
// (ClusterDocument): one field list per struct writes it and reads it back, so the report and
// the run registry read ClusterDocumentFromJson, never fields by name.
#pragma once

#include <cstdint>
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

// paratune.cluster/1, typed: what the document holds, in its units (docs/json.md).
struct ClusterNodeTypeSummary {
  std::string name;
  std::string gpu;
  bool priced = false;
  int nodes = 0;
  int gpus_per_node = 0;
  int nodes_per_domain = 0;
  int nodes_per_leaf = 0;
  double spine_oversubscription = 1;
};
struct ClusterSummary {
  int64_t nodes = 0;
  int gpus = 0;
  int domains = 0;
  int leaves = 0;
  std::string description;  // ClusterTopology::Describe()
  std::vector<ClusterNodeTypeSummary> node_types;
};
struct JobTraceSummary {
  std::string path;
  std::string format;
  int64_t jobs = 0;
  int64_t skipped_count = 0;
  std::vector<SkippedRow> skipped;  // the first kMaxSkippedListed
  // The queueing delay the history recorded (Job::measured_wait_s): Slurm and Alibaba traces.
  std::optional<DelayStats> measured_queue_delay_s;
};
// The sampled series the report draws, thinned evenly to at most 500 samples.
struct SeriesExcerpt {
  std::vector<double> time_s;
  std::vector<int> allocated_gpus;
  std::vector<int> queue_length;
  std::vector<int> fragmented_gpus;
};
// Modelled jobs by the slowdown of their first placement: jobs[i] in [from[i], from[i + 1]).
struct SlowdownHistogram {
  std::vector<double> from;
  std::vector<int64_t> jobs;
};
// One policy: its name and figures (metrics.policy and price_cache_entries are not written),
// and, when metrics.models, the slowdown histogram (empty otherwise).
struct ClusterPolicySummary {
  std::string policy;
  PolicyMetrics metrics;
  SeriesExcerpt series;
  SlowdownHistogram slowdown_histogram;
};
struct ClusterDocument {
  ClusterSummary cluster;
  JobTraceSummary trace;
  ReplayOptions options;  // record_placements is not written
  std::vector<ClusterPolicySummary> policies;
};

// The document of a replay: the series thinned, the histogram counted, the skipped rows cut.
ClusterDocument ClusterDocumentOf(const ClusterRun& run);
nlohmann::json ClusterDocumentJson(const ClusterDocument& d);
nlohmann::json ClusterJson(const ClusterRun& run);  // ClusterDocumentJson(ClusterDocumentOf(run))
// Throws InputError naming the file and the field of a missing or mistyped member.
ClusterDocument ClusterDocumentFromJson(const nlohmann::json& doc, const std::string& where);

std::string SeriesCsv(const ClusterRun& run);
std::string JobsCsv(const ClusterRun& run);
std::string PlacementTraceText(const ClusterRun& run);

}  // namespace paratune
