// The orchestration of the measured metrics: per rank, the rows (HTA's optional µs rounding, the
// last-step filter, the GPU event set) and then each metric from its own file (temporal.cc,
// kernels.cc, idle_time.cc, launches.cc, iterations.cc, collectives.cc); across ranks, the
// summed kernel types, the cross-rank view (cross_rank.cc) and the stragglers (stragglers.cc).
#include "analysis/trace_analysis.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/critical_path_across.h"
#include "analysis/rank_rows.h"
#include "analysis/temporal.h"
#include "util/thread_pool.h"

namespace paratune {
namespace {

// Temporal breakdown and overlap, HTA's (possibly rounded) and from the exact ns timestamps.
void SetTemporal(RankAnalysis& ra, const RankRows& rr) {
  const RowsBreakdown whole = BreakdownRows(rr.gpu, rr.gpu_types, rr.origin);
  ra.temporal = whole.temporal;
  ra.comm_overlap_pct = whole.overlap_pct;
  if (!ra.rounded) {
    ra.temporal_exact = ra.temporal;
    ra.comm_overlap_exact_pct = ra.comm_overlap_pct;
    return;
  }
  std::vector<Row> exact = rr.gpu;
  for (Row& r : exact) {
    r.ts = rr.trace->events[r.index].ts_ns;
    r.end = r.ts + rr.trace->events[r.index].dur_ns;
  }
  const RowsBreakdown x = BreakdownRows(exact, rr.gpu_types, rr.origin);
  ra.temporal_exact = x.temporal;
  ra.comm_overlap_exact_pct = x.overlap_pct;
}

}  // namespace

RankPart AnalyzeRank(const RankTrace& t, bool filter_last_step, const AnalysisOptions& opt) {
  RankPart part;
  RankAnalysis& ra = part.analysis;
  ra.rank = t.rank;
  ra.path = t.path;
  ra.device_name = t.device_name;
  ra.world_size = t.world_size;
  ra.events = static_cast<int64_t>(t.events.size());
  ra.warnings = t.warnings;
  ra.rounded = opt.rounding == TimeRounding::kHta && t.fractional_ts;

  RankRows rr(t);
  BuildRankRows(rr, ra.rounded, filter_last_step);
  ra.gpu_events = static_cast<int64_t>(rr.gpu.size());

  SetTemporal(ra, rr);

  ra.kernel_types = KernelTypeBreakdown(rr);
  KernelTables kernels = KernelStatistics(rr, opt.top_kernels, opt.kernel_duration_ratio);
  ra.top_kernels = std::move(kernels.top_kernels);
  ra.hta_kernel_table = std::move(kernels.hta_kernel_table);
  ra.categories = std::move(kernels.categories);
  ra.idle = IdleTimeBreakdown(rr, opt.consecutive_kernel_delay_s);
  ra.launch = LaunchStatistics(rr, opt.launch_runtime_cutoff_s, opt.launch_delay_cutoff_s);
  IterationBreakdown it = Iterations(rr);
  ra.graphs = GraphLaunches(rr, it.gpu_row_steps);
  ra.queue_length = QueueLengthSummary(rr);
  ra.memory_bandwidth = MemoryBandwidthSummary(rr);
  ra.iterations = std::move(it.iterations);
  ra.step_time = it.step_time;
  ra.dataloader_share = it.dataloader_share;
  ra.analysed_event_steps = std::move(it.gpu_row_steps);
  ra.memory = MemoryTimelineOf(t);
  if (opt.critical_path) ra.critical_path = TraceCriticalPathOf(rr, *opt.critical_path, &ra.critical_path_missing);
  ra.kernel_sequences =
      FrequentKernelSequences(t, opt.kernel_sequence_operator, opt.min_sequence_length, opt.top_kernels);

  // Collectives: exposed time and bus bandwidth per kind.
  std::vector<uint32_t> idx;
  idx.reserve(rr.gpu.size());
  for (const Row& r : rr.gpu) idx.push_back(r.index);
  ra.collectives = ComputeCollectiveStats(t, idx);
  part.comm =
      CollectiveTimesOf(t, idx, ra.analysed_event_steps, ra.critical_path ? &ra.critical_path->events : nullptr);
  // The path's events and steps served the line above; a rank keeps only its path's summary, so
  // that many ranks' whole-trace paths do not add up (keep_graph keeps them for tests, keep_path for the overlay).
  if (ra.critical_path && !opt.critical_path->keep_graph && !opt.critical_path->keep_path) {
    ra.critical_path->events = {};
    ra.critical_path->steps = {};
  }
  ra.analysed_events = std::move(idx);
  return part;
}

std::set<int64_t> ProfilerStepNames(const RankTrace& t) {
  std::set<int64_t> out;
  for (const std::string& n : t.names) {
    const int64_t s = ProfilerStepNumber(n);
    if (s >= 0) out.insert(s);
  }
  return out;
}

bool FilterLastStep(const std::set<int64_t>& step_names, const AnalysisOptions& options) {
  return !options.include_last_step && step_names.size() >= 2;
}

TraceAnalysis CombineRanks(std::vector<RankPart> parts, const AnalysisOptions& options) {
  TraceAnalysis a;
  a.options = options;
  std::set<int64_t> kept_steps;
  std::map<std::string, double> type_sums;
  for (const RankPart& p : parts) {
    const RankAnalysis& r = p.analysis;
    a.events += r.events;
    for (const auto& it : r.iterations) kept_steps.insert(it.step);
    for (const auto& k : r.kernel_types) type_sums[k.label] += k.sum_s;
    if ((r.warnings.truncated > 0 || r.warnings.BadValues() > 0) &&
        std::find(a.partial.begin(), a.partial.end(), r.path) == a.partial.end())
      a.partial.push_back(r.path);
  }
  a.profiler_steps.assign(kept_steps.begin(), kept_steps.end());
  for (const auto& [label, sum] : type_sums) a.kernel_types.push_back({label, sum});
  std::stable_sort(a.kernel_types.begin(), a.kernel_types.end(),
                   [](const auto& x, const auto& y) { return x.sum_s > y.sum_s; });

  SetCollectiveWaits(parts);
  // Stragglers across ranks, from each rank's communication kernels and step times.
  if (parts.size() >= 2) {
    std::vector<StragglerInput> in;
    for (RankPart& p : parts) {
      StragglerInput s;
      s.rank = p.analysis.rank;
      s.comm = std::move(p.comm);
      for (const auto& it : p.analysis.iterations) s.step_times_s.push_back(it.cpu_step_s);
      in.push_back(std::move(s));
    }
    a.stragglers = FindStragglers(in);
  }
  a.ranks.reserve(parts.size());
  for (RankPart& p : parts) a.ranks.push_back(std::move(p.analysis));
  CrossRankView view = CrossRank(a.ranks);
  a.cross_rank = std::move(view.spreads);
  a.iterations = std::move(view.iterations);
  return a;
}

TraceAnalysis AnalyzeTraces(const std::vector<RankTrace>& ranks, const AnalysisOptions& options) {
  std::set<int64_t> step_names;
  for (const RankTrace& t : ranks) step_names.merge(ProfilerStepNames(t));
  const bool filter = FilterLastStep(step_names, options);
  std::vector<RankPart> parts(ranks.size());
  ParallelFor(ranks.size(), options.threads, [&](size_t i) { parts[i] = AnalyzeRank(ranks[i], filter, options); });
  TraceAnalysis a = CombineRanks(std::move(parts), options);
  for (const RankTrace& t : ranks) a.bytes_read += t.bytes_read;
  return a;
}

}  // namespace paratune
