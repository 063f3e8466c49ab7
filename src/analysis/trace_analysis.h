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
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/collectives.h"
#include "analysis/critical_path.h"
#include "analysis/cross_rank.h"
#include "analysis/graph_launches.h"
#include "analysis/idle_time.h"
#include "analysis/iterations.h"
#include "analysis/kernel_class.h"
#include "analysis/kernel_sequences.h"
#include "analysis/kernels.h"
#include "analysis/launches.h"
#include "analysis/memory_bandwidth.h"
#include "analysis/memory_timeline.h"
#include "analysis/queue_length.h"
#include "analysis/stragglers.h"
#include "timeline/breakdown.h"
#include "trace/trace_event.h"
#include "util/stats.h"

namespace paratune {

// HTA reads timestamps with pandas; when any ts of a rank has a fractional part it rounds every
// event inward to whole µs (ts = ceil(ts), end = floor(ts + dur)), which shortens each event by
// up to 1 µs. kHta (the default) reproduces HTA so that figures compare with it; the exact-ns
// temporal breakdown is always reported beside (RankAnalysis::temporal_exact). kExact analyses
// everything at ns resolution.
enum class TimeRounding { kHta, kExact };

struct AnalysisOptions {
  TimeRounding rounding = TimeRounding::kHta;
  bool include_last_step = false;             // HTA drops the last ProfilerStep (often cut short)
  double consecutive_kernel_delay_s = 30e-6;  // HTA idle breakdown: kernel_wait below this gap
  double launch_runtime_cutoff_s = 50e-6;     // HTA launch stats: runtime outlier / short kernel
  double launch_delay_cutoff_s = 100e-6;      // HTA launch stats: launch-delay outlier
  int top_kernels = 10;                       // kernels listed per type (HTA num_kernels)
  double kernel_duration_ratio = 0.8;         // HTA duration_ratio for its kernel table
  int threads = 0;                            // ranks analysed in parallel; 0: one per hardware thread
  // HTA's frequent kernel sequences (kernel_sequences.h) of the operators whose name contains
  // this; none when empty. At most top_kernels patterns per rank.
  std::string kernel_sequence_operator;
  int min_sequence_length = 3;  // HTA min_pattern_len
  // HTA's critical path of each rank in this window (critical_path.h); none when absent.
  std::optional<CriticalPathOptions> critical_path;
};

struct RankAnalysis {
  int rank = 0;
  std::string path;
  std::string device_name;
  int world_size = 0;      // from the trace (Kineto distributedInfo.world_size); 0: unknown
  bool rounded = false;    // HTA rounding applied to this rank
  int64_t events = 0;      // events read
  int64_t gpu_events = 0;  // GPU events analysed (stream != -1, after the last-step filter)
  GpuTimeBreakdown temporal;
  double comm_overlap_pct = std::numeric_limits<double>::quiet_NaN();  // NaN: no communication
  // The same two figures from the unrounded ns timestamps (equal to the above when `rounded` is
  // false): shown beside HTA's when they differ.
  GpuTimeBreakdown temporal_exact;
  double comm_overlap_exact_pct = std::numeric_limits<double>::quiet_NaN();
  std::vector<KernelTypeShare> kernel_types;   // sorted by sum descending, zero rows dropped
  std::vector<KernelStat> top_kernels;         // per HTA type, top `top_kernels` by sum
  std::vector<HtaKernelRow> hta_kernel_table;  // HTA's kernel_df rows for this rank
  std::vector<CategoryShare> categories;       // sorted by sum descending
  std::vector<IdleRow> idle;                   // per stream (first appearance) and category
  LaunchStats launch;
  std::vector<IterationStats> iterations;
  SummaryStats step_time;       // over iterations' cpu_step_s
  double dataloader_share = 0;  // sum dataloader_s / sum cpu_step_s
  std::vector<CollectiveStats> collectives;
  std::optional<MemoryTimeline> memory;              // with the profiler's memory events (profile_memory=True)
  GraphLaunchStats graphs;                           // the GPU work run through CUDA graphs
  std::vector<QueueLengthRow> queue_length;          // HTA's launch queue per stream
  std::vector<MemoryBandwidthRow> memory_bandwidth;  // HTA's memcpy/memset bandwidth per kind
  std::vector<KernelSequence> kernel_sequences;      // with AnalysisOptions::kernel_sequence_operator
  std::optional<TraceCriticalPath> critical_path;    // with AnalysisOptions::critical_path, when found
  std::string critical_path_missing;                 // why not, when asked and not found
  TraceWarnings warnings;
  std::vector<uint32_t> analysed_events;      // indices into RankTrace::events of the GPU event set
  std::vector<int64_t> analysed_event_steps;  // parallel: the ProfilerStep#N each was launched in, or -1
};

struct TraceAnalysis {
  AnalysisOptions options;
  std::vector<RankAnalysis> ranks;
  std::vector<int64_t> profiler_steps;        // kept ProfilerStep numbers (all ranks)
  std::vector<KernelTypeShare> kernel_types;  // summed over ranks (HTA's kernel_type_df)
  StragglerReport stragglers;
  std::vector<RankSpread> cross_rank;       // with two or more ranks
  std::vector<IterationSpread> iterations;  // per step number, with two or more ranks
  int64_t events = 0;
  int64_t bytes_read = 0;
  // Files analysed only in part (read with TraceSetOptions::allow_partial): truncated, or with
  // events skipped for unusable numbers; each once, in rank order. Empty for a complete read.
  std::vector<std::string> partial;
  std::optional<LinkCeilingBasis> link_ceiling;  // set with the collectives' ceilings (analyze --gpu)
};

// Each rank is analysed on its own (in parallel, util/thread_pool.h), then the figures across
// ranks: HTA's summed kernel_type_df, the cross-rank view and the stragglers.
TraceAnalysis AnalyzeTraces(const std::vector<RankTrace>& ranks, const AnalysisOptions& options = {});

// The pieces of AnalyzeTraces, for ranks read and measured apart (analysis/distributed_analysis.h):
// the ProfilerStep#N numbers a rank's symbol table names; whether HTA's last-step filter applies
// (two or more distinct numbers over all ranks, unless options.include_last_step); one rank
// measured on its own with the communication kernels the stragglers match across ranks; and the
// figures across ranks from those parts, in the parts' order (by rank). CombineRanks leaves
// bytes_read at 0 (the files' sizes are the caller's).
std::set<int64_t> ProfilerStepNames(const RankTrace& t);
bool FilterLastStep(const std::set<int64_t>& step_names, const AnalysisOptions& options);
struct RankPart {
  RankAnalysis analysis;
  RankCollectiveTimes comm;
};
RankPart AnalyzeRank(const RankTrace& t, bool filter_last_step, const AnalysisOptions& options);
TraceAnalysis CombineRanks(std::vector<RankPart> parts, const AnalysisOptions& options);

}  // namespace paratune
