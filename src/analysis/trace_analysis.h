// TraceAnalysis: what a measured run did on each GPU, from the ranks' profiler traces: HTA's
// temporal breakdown and communication/computation overlap, the kernel breakdown (HTA's three
// kernel types and paratune's finer categories, top kernels), the idle-time breakdown, CUDA
// launch statistics, per-iteration step times and data-loader share, per-collective exposed
// time and bus bandwidth, and straggler ranks.
//
// The definitions follow Holistic Trace Analysis (github.com/facebookresearch/HolisticTraceAnalysis,
// hta/analyzers/breakdown_analysis.py, cuda_kernel_analysis.py) as documented in
// ../shared/traces/hta_reference/README.md and docs/analysis.md; the one intended difference
// (HTA rounds ns timestamps to µs) is an option, see TimeRounding.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "analysis/collectives.h"
#include "analysis/kernel_class.h"
#include "analysis/stragglers.h"
#include "timeline/breakdown.h"
#include "trace/trace_event.h"

namespace paratune {

// HTA reads timestamps with pandas; when any ts of a rank has a fractional part it rounds every
// event inward to whole µs (ts = ceil(ts), end = floor(ts + dur)), which shortens each event by
// up to 1 µs. kHta (the default) reproduces HTA so that figures compare with it; the exact-ns
// temporal breakdown is always reported beside (RankAnalysis::temporal_exact). kExact analyses
// everything at ns resolution.
enum class TimeRounding { kHta, kExact };

struct AnalysisOptions {
  TimeRounding rounding = TimeRounding::kHta;
  bool include_last_step = false;          // HTA drops the last ProfilerStep (often cut short)
  double consecutive_kernel_delay_s = 30e-6;  // HTA idle breakdown: kernel_wait below this gap
  double launch_runtime_cutoff_s = 50e-6;     // HTA launch stats: runtime outlier / short kernel
  double launch_delay_cutoff_s = 100e-6;      // HTA launch stats: launch-delay outlier
  int top_kernels = 10;                       // kernels listed per type (HTA num_kernels)
  double kernel_duration_ratio = 0.8;         // HTA duration_ratio for its kernel table
};

// get_temporal_breakdown: the rank's GPU events (stream != -1) in the shared vocabulary of
// timeline/breakdown.h: window = last GPU event end - first start (HTA's kernel time), compute =
// |U(COMPUTATION kernels)|, non-compute = the rest of |U(all GPU events)| (communication, memory,
// syncs not under compute), idle = window - both.
// One label of HTA's kernel_type_df: time on the rank's GPU labelled by which kernel types run.
struct KernelTypeShare {
  std::string label;  // "COMPUTATION", "COMPUTATION overlapping COMMUNICATION", ...
  double sum_s = 0;
};

// Per-name statistics of one kernel (true per-invocation figures).
struct KernelStat {
  std::string name;
  HtaKernelType type = HtaKernelType::kComputation;
  KernelCategory category = KernelCategory::kOther;
  int64_t count = 0;
  double sum_s = 0, max_s = 0, min_s = 0, mean_s = 0, stddev_s = 0;  // stddev: sample (n-1)
};

// A row of HTA's kernel_df as HTA builds it (with its top-k re-aggregation; see docs/analysis.md).
struct HtaKernelRow {
  std::string name;  // or "others"
  HtaKernelType type = HtaKernelType::kComputation;
  double sum_s = 0, max_s = 0, min_s = 0, mean_s = 0, stddev_s = 0;
};

struct CategoryShare {
  KernelCategory category = KernelCategory::kOther;
  int64_t count = 0;
  double sum_s = 0;  // sum of durations (overlap counted per kernel)
};

// get_idle_time_breakdown, one (stream, category) row with its interval statistics.
struct IdleRow {
  int64_t stream = -1;
  std::string category;  // "host_wait", "kernel_wait", "other"
  double idle_s = 0;
  double ratio = 0;  // idle_s / the stream's idle total
  int64_t count = 0;  // gaps counted (the stream's first event has no gap)
  double mean_s = 0, stddev_s = 0, min_s = 0, p25_s = 0, p50_s = 0, p75_s = 0, max_s = 0;
};

// get_cuda_kernel_launch_stats summary.
struct LaunchStats {
  int64_t launches = 0;            // matched CPU launch / GPU event pairs
  double cpu_duration_s = 0;       // sum of launch-call durations
  double gpu_duration_s = 0;       // sum of the launched events' durations
  double launch_delay_s = 0;       // sum of max(0, gpu start - cpu end)
  double mean_launch_delay_s = 0;
  double max_launch_delay_s = 0;
  int64_t short_kernels = 0;       // cpu <= cutoff and gpu < cpu: launch overhead dominates
  int64_t runtime_outliers = 0;    // cpu > runtime cutoff
  int64_t launch_delay_outliers = 0;  // delay > delay cutoff
};

// One ProfilerStep#N of a rank.
struct IterationStats {
  int64_t step = 0;
  int64_t cpu_start_ns = 0;   // ProfilerStep start, in the file's time base (RankTrace::ts_ns)
  int64_t gpu_start_ns = -1;  // first GPU event it launched; -1: none
  double cpu_step_s = 0;      // the ProfilerStep range on the CPU
  double dataloader_s = 0;    // union of data-loader ops inside it
  GpuTimeBreakdown gpu;      // over the GPU events launched from inside it
  double comm_overlap_pct = std::numeric_limits<double>::quiet_NaN();
};

struct SummaryStats {
  int64_t count = 0;
  double mean = 0, median = 0, min = 0, max = 0, stddev = 0;
};
SummaryStats Describe(std::vector<double> values);

struct RankAnalysis {
  int rank = 0;
  std::string path;
  std::string device_name;
  bool rounded = false;         // HTA rounding applied to this rank
  int64_t events = 0;           // events read
  int64_t gpu_events = 0;       // GPU events analysed (stream != -1, after the last-step filter)
  GpuTimeBreakdown temporal;
  double comm_overlap_pct = std::numeric_limits<double>::quiet_NaN();  // NaN: no communication
  // The same two figures from the unrounded ns timestamps (equal to the above when `rounded` is
  // false): shown beside HTA's when they differ.
  GpuTimeBreakdown temporal_exact;
  double comm_overlap_exact_pct = std::numeric_limits<double>::quiet_NaN();
  std::vector<KernelTypeShare> kernel_types;    // sorted by sum descending, zero rows dropped
  std::vector<KernelStat> top_kernels;          // per HTA type, top `top_kernels` by sum
  std::vector<HtaKernelRow> hta_kernel_table;   // HTA's kernel_df rows for this rank
  std::vector<CategoryShare> categories;        // sorted by sum descending
  std::vector<IdleRow> idle;                    // per stream (first appearance) and category
  LaunchStats launch;
  std::vector<IterationStats> iterations;
  SummaryStats step_time;                       // over iterations' cpu_step_s
  double dataloader_share = 0;                  // sum dataloader_s / sum cpu_step_s
  std::vector<CollectiveStats> collectives;
  TraceWarnings warnings;
  std::vector<uint32_t> analysed_events;  // indices into RankTrace::events of the GPU event set
  std::vector<int64_t> analysed_event_steps;  // parallel: the ProfilerStep#N each was launched in, or -1
};

// The spread of one per-rank figure across the ranks (NaN figures, such as the overlap of a rank
// without communication, are left out).
struct RankSpread {
  std::string metric;  // "compute_pct", "non_compute_pct", "idle_pct", "comm_overlap_pct", "step_time_s", "dataloader_share"
  double min = 0, median = 0, max = 0;
  int min_rank = -1, max_rank = -1;
};

// One ProfilerStep#N across the ranks that have it: its CPU step time's spread and the slowest rank.
struct IterationSpread {
  int64_t step = 0;
  int ranks = 0;
  double min_s = 0, median_s = 0, max_s = 0;
  int slowest_rank = -1;  // -1: all ranks within 1 µs
};

struct TraceAnalysis {
  AnalysisOptions options;
  std::vector<RankAnalysis> ranks;
  std::vector<int64_t> profiler_steps;          // kept ProfilerStep numbers (all ranks)
  std::vector<KernelTypeShare> kernel_types;    // summed over ranks (HTA's kernel_type_df)
  StragglerReport stragglers;
  std::vector<RankSpread> cross_rank;             // with two or more ranks
  std::vector<IterationSpread> iterations;        // per step number, with two or more ranks
  int64_t events = 0;
  int64_t bytes_read = 0;
};

TraceAnalysis AnalyzeTraces(const std::vector<RankTrace>& ranks, const AnalysisOptions& options = {});


}  // namespace paratune
