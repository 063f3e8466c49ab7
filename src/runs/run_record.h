// RunRecord: what the run registry holds for one training run (docs/runs.md): who and where
// (model, cluster, GPU, layout, software, tags), its figures measured and/or predicted, the
// findings of `diagnose`, time series over iterations from training logs, the cluster
// simulator's per-policy summaries, and the files it was recorded from.
//
// The findings, series, policy summaries and sources are the registry documents' own structs
// (schema/registry_documents.h). The metrics are written ONCE, in kMetrics below: the schema
// docs, the table and CSV columns, the JSON keys and the "which term moved" breakdown of
// `runs compare` all derive from it.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduling/replay_result.h"
#include "schema/registry_documents.h"

namespace paratune {

enum class Metric : uint8_t {
  kMfu,
  kHfu,
  kTokensPerSPerGpu,
  kTokensPerHour,
  kStepTime,
  kCommShare,
  kBubbleShare,
  kDataLoaderShare,
  kPeakMemory,
  // The step-time breakdown (seconds per step): the terms `runs compare` ranks.
  kComputeTime,
  kRecomputeTime,
  kExposedTpComm,
  kExposedDpComm,
  kExposedPpComm,
  kExposedEpComm,
  kExposedCpComm,
  kExposedOtherComm,
  kBubbleTime,
  kOptimizerTime,
  kDataLoaderTime,
  kOtherTime,
};

struct MetricInfo {
  Metric id;
  const char* name;  // the JSON key, the `figures.metric` value, the CSV column stem
  const char* unit;  // "fraction", "tokens/s", "tokens/h", "s", "B"
  Better better;
  bool step_term;  // a term of the step-time breakdown (seconds per step)
  const char* description;
};

// Sources of each figure: docs/runs.md "Figures" (which file gives which, and how measured
// figures are derived from an analysis or a training log).
inline constexpr std::array<MetricInfo, 21> kMetrics{{
    {Metric::kMfu, "mfu", "fraction", Better::kHigher, false,
     "model FLOPs utilisation: model FLOP/s per GPU over the dense peak of the training precision"},
    {Metric::kHfu, "hfu", "fraction", Better::kHigher, false,
     "hardware FLOPs utilisation: as MFU, with recomputation counted"},
    {Metric::kTokensPerSPerGpu, "tokens_per_s_per_gpu", "tokens/s", Better::kHigher, false,
     "training tokens per second per GPU"},
    {Metric::kTokensPerHour, "tokens_per_hour", "tokens/h", Better::kHigher, false,
     "training tokens per hour of the whole job"},
    {Metric::kStepTime, "step_time_s", "s", Better::kLower, false, "time of one optimizer step"},
    {Metric::kCommShare, "comm_share", "fraction", Better::kLower, false,
     "exposed (not overlapped) communication over the step time"},
    {Metric::kBubbleShare, "bubble_share", "fraction", Better::kLower, false, "pipeline bubble over the step time"},
    {Metric::kDataLoaderShare, "data_loader_share", "fraction", Better::kLower, false,
     "data-loader time over the step time"},
    {Metric::kPeakMemory, "peak_memory_bytes", "B", Better::kLower, false, "peak GPU memory of the most loaded GPU"},
    {Metric::kComputeTime, "compute_s", "s", Better::kLower, true, "GPU compute per step"},
    {Metric::kRecomputeTime, "recompute_s", "s", Better::kLower, false,
     "activation recomputation per step; part of compute_s, so not a term of its own"},
    {Metric::kExposedTpComm, "exposed_tp_comm_s", "s", Better::kLower, true,
     "exposed tensor-parallel communication per step"},
    {Metric::kExposedDpComm, "exposed_dp_comm_s", "s", Better::kLower, true,
     "exposed data-parallel communication (gradient reduce, parameter gather) per step"},
    {Metric::kExposedPpComm, "exposed_pp_comm_s", "s", Better::kLower, true, "exposed pipeline send/receive per step"},
    {Metric::kExposedEpComm, "exposed_ep_comm_s", "s", Better::kLower, true,
     "exposed expert-parallel all-to-all per step"},
    {Metric::kExposedCpComm, "exposed_cp_comm_s", "s", Better::kLower, true,
     "exposed context-parallel communication per step"},
    {Metric::kExposedOtherComm, "exposed_other_comm_s", "s", Better::kLower, true,
     "exposed communication whose parallel group a trace does not tell (all-reduce, all-gather, "
     "reduce-scatter, broadcast kernels) per step"},
    {Metric::kBubbleTime, "bubble_s", "s", Better::kLower, true, "pipeline bubble per step"},
    {Metric::kOptimizerTime, "optimizer_s", "s", Better::kLower, true, "optimizer step"},
    {Metric::kDataLoaderTime, "data_loader_s", "s", Better::kLower, true, "data loading per step"},
    {Metric::kOtherTime, "other_s", "s", Better::kLower, true,
     "the rest of the step: idle GPU time (measured) or the model's remainder (predicted)"},
}};
inline constexpr size_t kMetricCount = kMetrics.size();

constexpr const MetricInfo& InfoOf(Metric m) { return kMetrics[static_cast<size_t>(m)]; }
// The metric named `name`, or nullopt.
std::optional<Metric> MetricByName(std::string_view name);

inline constexpr double kNoFigure = std::numeric_limits<double>::quiet_NaN();
inline bool HasFigure(double v) { return !std::isnan(v); }

// One metric of a run: measured (from a trace analysis or a training log) and/or predicted (by
// the cost model: estimate, plan, or analyze's prediction block). NaN: not known.
struct Figure {
  double measured = kNoFigure;
  double predicted = kNoFigure;
};

struct PolicyMetricInfo {
  const char* name;  // the key in paratune.cluster/1 policies[] and in policy_figures.metric
  const char* unit;
  const char* description;
  double (*figure)(const PolicyMetrics&);  // read from the typed document (scheduling/cluster_json.h)
};
inline constexpr std::array<PolicyMetricInfo, 12> kPolicyMetrics{{
    {"goodput", "fraction", "useful GPU-hours over capacity GPU-hours",
     [](const PolicyMetrics& m) { return m.goodput; }},
    {"utilization", "fraction", "allocated GPU-hours over capacity GPU-hours",
     [](const PolicyMetrics& m) { return m.utilization; }},
    {"mean_ettr", "fraction", "mean effective training time ratio of the jobs",
     [](const PolicyMetrics& m) { return m.mean_ettr; }},
    {"makespan_s", "s", "first submission to last completion", [](const PolicyMetrics& m) { return m.makespan_s; }},
    {"jobs_finished", "jobs", "jobs that completed",
     [](const PolicyMetrics& m) { return static_cast<double>(m.jobs_finished); }},
    {"useful_gpu_hours", "GPU-h", "GPU-hours that advanced training",
     [](const PolicyMetrics& m) { return m.useful_gpu_hours; }},
    {"lost_gpu_hours", "GPU-h", "GPU-hours lost to failures", [](const PolicyMetrics& m) { return m.lost_gpu_hours; }},
    {"preemptions", "count", "jobs preempted",
     [](const PolicyMetrics& m) { return static_cast<double>(m.preemptions); }},
    {"migrations", "count", "jobs migrated", [](const PolicyMetrics& m) { return static_cast<double>(m.migrations); }},
    {"queue_delay_mean_s", "s", "mean queueing delay of the jobs",
     [](const PolicyMetrics& m) { return m.queue_delay_s.mean; }},
    {"queue_delay_p50_s", "s", "median queueing delay of the jobs",
     [](const PolicyMetrics& m) { return m.queue_delay_s.p50; }},
    {"queue_delay_p99_s", "s", "99th percentile of the jobs' queueing delay",
     [](const PolicyMetrics& m) { return m.queue_delay_s.p99; }},
}};

struct RunRecord {
  std::string name;
  std::string created_utc;  // ISO 8601 UTC with milliseconds: "2026-12-01T21:10:00.123Z"
  std::string cluster;      // a team's name for the cluster, or "<gpus>x<gpu>" when not given
  std::string model;        // catalog name or the name the files give
  std::string gpu;
  int64_t gpus = 0;
  std::string layout_json;    // the layout object of paratune.estimate/1 (compact JSON), or ""
  std::string scenario_json;  // a scenario (e.g. a validation CSV row) as compact JSON, or ""
  std::string software;       // free text: "Megatron-LM core_r0.12, NCCL 2.23, CUDA 12.6"
  std::string content_hash;   // sha256 over the run's sources' sha256s, sorted
  std::array<Figure, kMetricCount> figures{};
  std::vector<std::pair<std::string, std::string>> tags;  // sorted by key
  std::vector<RunFinding> findings;
  std::vector<RunSeries> series;
  std::vector<PolicySummary> policies;
  std::vector<RunSource> sources;

  Figure& operator[](Metric m) { return figures[static_cast<size_t>(m)]; }
  const Figure& operator[](Metric m) const { return figures[static_cast<size_t>(m)]; }
};

// Merges `part` into `into`: known figures and non-empty fields of `part` win; findings, series,
// policies and sources are appended; tags are set (a key given again takes the new value).
void MergeInto(RunRecord& into, const RunRecord& part);

// Sets tag `key` to `value`, keeping tags sorted by key.
void SetTag(RunRecord& r, const std::string& key, const std::string& value);

// The default cluster label when none is given: "<gpus>x<gpu>" ("64xH100"), or "" when unknown.
std::string DefaultClusterLabel(const std::string& gpu, int64_t gpus);

}  // namespace paratune
