// The paratune.analyze/1 section: each rank's GPU time (compute, non-compute, idle) stacked, the
// kernel categories summed over ranks, the collectives' bus bandwidth by kind beside the link
// ceiling when the analysis had a GPU (analyze --gpu; docs/json.md ceiling_bytes_per_s), the measured step
// beside the predicted one when the analysis had a model, and the straggler table. The document is
// read typed (compare/analyze_document.h); GPU memory over time where the traces had memory
// events; with a trace diff, its largest changes in total time; the means over ranks
// are analysis/rank_means.h's.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "analysis/rank_means.h"
#include "analysis/rank_rows.h"
#include "compare/analyze_document.h"
#include "report/bar_chart.h"
#include "report/data_table.h"
#include "report/line_chart.h"
#include "report/scale.h"
#include "report/sections.h"
#include "report/stacked_bar_chart.h"

namespace paratune {

namespace {

// The GPU time per rank chart (compute, non-compute, idle stacked).
std::string AnalyzeRankChart(const std::string& id, const TraceAnalysis& a) {
  BarChartData per_rank;
  per_rank.spec = {id + "-ranks",
                   "GPU time per rank",
                   "Compute, non-compute (communication, memory) and idle GPU time of each rank.",
                   "rank",
                   "time",
                   "",
                   "s"};
  per_rank.series = {{"compute", {}}, {"non-compute", {}}, {"idle", {}}};
  for (const RankAnalysis& r : a.ranks) {
    per_rank.categories.push_back(fmt::format("rank {}", r.rank));
    per_rank.series[0].values.push_back(r.temporal.compute_s);
    per_rank.series[1].values.push_back(r.temporal.non_compute_s);
    per_rank.series[2].values.push_back(r.temporal.idle_s);
  }
  return RenderStackedBarChart(per_rank);
}

// The kernel time by category chart, summed over ranks.
std::string AnalyzeCategoryChart(const std::string& id, const TraceAnalysis& a) {
  std::map<std::string, double> categories;
  for (const RankAnalysis& r : a.ranks)
    for (const CategoryShare& c : r.categories) categories[KernelCategoryName(c.category)] += c.sum_s;
  BarChartData cat;
  cat.spec = {id + "-categories",
              "Kernel time by category",
              "GPU kernel time summed over ranks, by kernel category.",
              "category",
              "time",
              "",
              "s"};
  cat.series = {{"kernel time", {}}};
  for (const auto& [name, s] : categories) {
    cat.categories.push_back(name);
    cat.series[0].values.push_back(s);
  }
  return RenderBarChart(cat);
}

// The mean bus bandwidth per collective kind chart, beside its link ceiling when given; "" without one.
std::string AnalyzeBusbwChart(const std::string& id, const TraceAnalysis& a) {
  const std::map<std::string, BusBandwidthMean> busbw = MeanBusBandwidthByKind(a);
  if (busbw.empty()) return "";
  bool any_ceiling = false;
  for (const auto& [kind, m] : busbw) any_ceiling = any_ceiling || m.has_ceiling;
  BarChartData bw;
  bw.spec = {id + "-busbw",
             "Collective bus bandwidth",
             "Mean bus bandwidth over ranks of each collective kind with sized calls.",
             "collective",
             "bus bandwidth",
             "",
             "B/s"};
  bw.series = {{"bus bandwidth", {}}};
  // The ceiling, a second series beside each bar: the mean over ranks of the collective's link
  // ceiling (0 for a kind with none, e.g. "other").
  if (any_ceiling) {
    bw.series.push_back({"ceiling", {}});
    bw.spec.description += " Beside each, the link ceiling of the groups it ran in (analyze --gpu).";
  }
  for (const auto& [kind, m] : busbw) {
    bw.categories.push_back(kind);
    bw.series[0].values.push_back(m.busbw_bytes_per_s);
    if (any_ceiling) bw.series[1].values.push_back(m.has_ceiling ? m.ceiling_bytes_per_s : 0.0);
  }
  std::string html = RenderBarChart(bw);
  if (!any_ceiling) html += Paragraph("Bus bandwidth ceiling not given (pass --gpu to analyze).");
  return html;
}

// The measured step beside the predicted one, when the analysis had a model; else "".
std::string AnalyzePredictionChart(const std::string& id, const std::optional<PredictionFigures>& p) {
  if (!p) return "";
  BarChartData pm;
  pm.spec = {id + "-prediction",
             "Measured beside predicted",
             "The measured step time beside the cost model's prediction.",
             "",
             "step time",
             "",
             "s"};
  pm.categories = {"step time"};
  pm.series = {{"measured", {p->measured_step_time_s}}, {"predicted", {p->predicted_step_time_s}}};
  return RenderBarChart(pm);
}

// The straggler table, when the analysis has ranks in it; else "".
std::string AnalyzeStragglerTable(const StragglerReport& s) {
  if (s.ranks.empty()) return "";
  DataTable t;
  t.columns = {"rank", "mean step", "robust z", "last arrivals", "caused wait", "straggler", "reason"};
  t.numeric = {true, true, true, true, true, false, false};
  t.css_class = "stragglers";
  for (const StragglerRank& r : s.ranks)
    t.rows.push_back({fmt::format("{}", r.rank), FormatValue(r.mean_step_time_s, "s"),
                      fmt::format("{:.2f}", r.step_time_robust_z), fmt::format("{}", r.last_arrivals),
                      FormatValue(r.caused_wait_s, "s"), r.straggler ? "yes" : "no", r.reason});
  return "<h3>Stragglers</h3>\n" + RenderTable(t);
}

// The trace diff, when the analysis had one (analyze --diff-against / --diff-steps): the names
// whose total time changed most, control beside test (HTA's visualize_duration_diff, ProfilerStep
// rows left out as its guide does), and their counts and change in a table; else "".
std::string AnalyzeDiffChart(const std::string& id, const std::optional<TraceDiff>& diff) {
  if (!diff) return "";
  constexpr size_t kShown = 10;
  std::vector<const OpDiffRow*> rows;
  for (const OpDiffRow& r : diff->rows)
    if (ProfilerStepNumber(r.name) < 0 && r.test_total_s != r.control_total_s) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const OpDiffRow* a, const OpDiffRow* b) {
    return std::fabs(a->test_total_s - a->control_total_s) > std::fabs(b->test_total_s - b->control_total_s);
  });
  if (rows.size() > kShown) rows.resize(kShown);
  std::string html = "<h3>Trace diff</h3>\n";
  html += Paragraph(fmt::format(
      "Control: ranks {}, ProfilerStep#{}; test: ranks {}, ProfilerStep#{}. {} added, {} "
      "deleted, {} more often, {} less often, {} as often.",
      fmt::join(diff->control.selected.ranks, ","), fmt::join(diff->control.selected.iterations, ","),
      fmt::join(diff->test.selected.ranks, ","), fmt::join(diff->test.selected.iterations, ","),
      diff->CountOf(OpChange::kAdded), diff->CountOf(OpChange::kDeleted), diff->CountOf(OpChange::kIncreased),
      diff->CountOf(OpChange::kDecreased), diff->CountOf(OpChange::kUnchanged)));
  if (rows.empty()) return html + Paragraph("No operator or kernel changed its total time.");
  BarChartData chart;
  chart.spec = {id + "-diff",
                "Largest changes in total time",
                "Total time of the operators and kernels whose time changed most, in the control and the test run.",
                "operator or kernel",
                "total time",
                "",
                "s"};
  chart.series = {{"control", {}}, {"test", {}}};
  DataTable t;
  t.columns = {"name", "change", "control count", "test count", "control time", "test time"};
  t.numeric = {false, false, true, true, true, true};
  for (const OpDiffRow* r : rows) {
    const std::string shown = ShortOpName(r->name);
    chart.categories.push_back(shown.size() <= 48 ? shown : shown.substr(0, 45) + "...");
    chart.series[0].values.push_back(r->control_total_s);
    chart.series[1].values.push_back(r->test_total_s);
    t.rows.push_back({r->name, kOpChangeNames.Name(r->change), fmt::format("{}", r->control_count),
                      fmt::format("{}", r->test_count), FormatValue(r->control_total_s, "s"),
                      FormatValue(r->test_total_s, "s")});
  }
  return html + RenderBarChart(chart) + RenderTable(t);
}

// The GPU event time each rank ran from CUDA graph replays beside the rest (analysis/
// graph_launches.h), when any rank launched a graph; else "".
std::string AnalyzeGraphChart(const std::string& id, const TraceAnalysis& a) {
  if (std::none_of(a.ranks.begin(), a.ranks.end(), [](const RankAnalysis& r) { return r.graphs.launches > 0; }))
    return "";
  BarChartData c;
  c.spec = {id + "-graphs",
            "GPU time from CUDA graphs",
            "Summed duration of the GPU events each rank ran from CUDA graph replays, and of the others.",
            "rank",
            "GPU event time",
            "",
            "s"};
  c.series = {{"from CUDA graphs", {}}, {"launched one by one", {}}};
  for (const RankAnalysis& r : a.ranks) {
    const double all_s = r.graphs.gpu_time_share > 0 ? r.graphs.gpu_time_s / r.graphs.gpu_time_share : 0;
    c.categories.push_back(fmt::format("rank {}", r.rank));
    c.series[0].values.push_back(r.graphs.gpu_time_s);
    c.series[1].values.push_back(std::max(0.0, all_s - r.graphs.gpu_time_s));
  }
  return RenderStackedBarChart(c);
}

// HTA's launch queue per stream (analysis/queue_length.h): the time-weighted mean and the most
// operations waiting, per rank and stream (the first 24), when any rank has a series; else "".
std::string AnalyzeQueueChart(const std::string& id, const TraceAnalysis& a) {
  constexpr size_t kShown = 24;
  BarChartData c;
  c.spec = {id + "-queue",
            "CUDA launch queue per stream",
            "Operations launched on each stream and not yet started on the GPU: the time-weighted mean and the "
            "maximum. Near zero, the GPU waits for the CPU to launch; long, the GPU is the bottleneck.",
            "rank and stream",
            "operations queued",
            "",
            ""};
  c.series = {{"time-weighted mean", {}}, {"max", {}}};
  for (const RankAnalysis& r : a.ranks)
    for (const QueueLengthRow& q : r.queue_length) {
      if (c.categories.size() >= kShown) break;
      c.categories.push_back(fmt::format("rank {} stream {}", r.rank, q.stream));
      c.series[0].values.push_back(q.time_weighted_mean);
      c.series[1].values.push_back(q.max);
    }
  return c.categories.empty() ? "" : RenderBarChart(c);
}

// HTA's memory-copy bandwidth per kind (analysis/memory_bandwidth.h): per rank and kind the mean
// and the most GB/s in flight, when any rank has copies with a bandwidth; else "".
std::string AnalyzeCopyBandwidthChart(const std::string& id, const TraceAnalysis& a) {
  constexpr size_t kShown = 24;
  BarChartData c;
  c.spec = {id + "-copies",
            "Memory copy bandwidth",
            "GB/s of the memory copies and sets in flight on each rank, by kind: the mean while any runs and the "
            "most at once (CUPTI's bandwidth per copy, summed over concurrent copies).",
            "rank and kind",
            "bandwidth",
            "",
            "GB/s"};
  c.series = {{"mean", {}}, {"max", {}}};
  for (const RankAnalysis& r : a.ranks)
    for (const MemoryBandwidthRow& m : r.memory_bandwidth) {
      if (c.categories.size() >= kShown) break;
      c.categories.push_back(fmt::format("rank {} {}", r.rank, m.kind));
      c.series[0].values.push_back(m.mean_gbps);
      c.series[1].values.push_back(m.max_gbps);
    }
  return c.categories.empty() ? "" : RenderBarChart(c);
}

// HTA's frequent kernel sequences (analysis/kernel_sequences.h) of the lowest rank that has any,
// when asked for: each pattern's count and GPU time (the first 16 patterns); else "".
std::string AnalyzeKernelSequenceChart(const std::string& id, const TraceAnalysis& a) {
  constexpr size_t kShown = 16;
  const RankAnalysis* r = nullptr;
  for (const RankAnalysis& x : a.ranks)
    if (!r && !x.kernel_sequences.empty()) r = &x;
  if (!r) return "";
  BarChartData c;
  c.spec = {id + "-sequences",
            fmt::format("Kernel sequences of '{}' (rank {})", a.options.kernel_sequence_operator, r->rank),
            "The sequences of GPU work the outermost operators of that name launch (HTA's frequent CUDA kernel "
            "sequences): how often each occurs, and its GPU time in all. One frequent sequence is a candidate for "
            "fusion or a CUDA graph.",
            "pattern: operator, GPU events (first and last)",
            "occurrences",
            "",
            ""};
  c.series = {{"count", {}}};
  for (const KernelSequence& q : r->kernel_sequences) {
    if (c.categories.size() >= kShown) break;
    c.categories.push_back(fmt::format("#{} {} ({} events, {:.3f} ms)", c.categories.size() + 1, q.pattern.front(),
                                       q.pattern.size() - 1, q.gpu_time_s * 1e3));
    c.series[0].values.push_back(static_cast<double>(q.count));
  }
  return RenderBarChart(c);
}

// HTA's critical path (analysis/critical_path.h) of each rank that has one (the first 32): its
// length stacked by what bounds it (HTA's bound_by), the communication split into the wait for
// the last rank to arrive (beyond HTA) and the rest; else "".
std::string AnalyzeCriticalPathChart(const std::string& id, const TraceAnalysis& a) {
  constexpr size_t kShown = 32;
  BarChartData c;
  c.spec = {id + "-critical-path",
            "Critical path by what bounds it",
            "The longest chain of dependent work in the chosen window of each rank (HTA's critical path: CPU "
            "operators, launches, GPU kernels and synchronisations), split by what each step is bound by. "
            "Communication waiting for the last rank to arrive is the other rank's path: shorten that rank's.",
            "rank",
            "time on the critical path",
            "s",
            "s"};
  for (int b = 0; b < kCriticalBounds; ++b)
    if (static_cast<CriticalBound>(b) != CriticalBound::kDependency)
      c.series.push_back({kCriticalBoundNames.Name(static_cast<CriticalBound>(b)), {}});
  c.series.push_back({"waiting for the last rank", {}});
  for (const RankAnalysis& r : a.ranks) {
    if (!r.critical_path || c.categories.size() >= kShown) continue;
    c.categories.push_back(fmt::format("rank {}", r.rank));
    for (auto& s : c.series) s.values.push_back(0);
    for (const CriticalBoundShare& b : r.critical_path->bounds) {
      if (b.bound == CriticalBound::kDependency) continue;
      double t = std::max(b.time_s, 0.0);
      if (b.bound == CriticalBound::kGpuCommunication) t = std::max(t - r.critical_path->collective_wait_s, 0.0);
      c.series[static_cast<size_t>(b.bound)].values.back() = t;
    }
    c.series.back().values.back() = r.critical_path->collective_wait_s;
  }
  return c.categories.empty() ? "" : RenderStackedBarChart(c);
}

// GPU memory over time from the profiler's memory events (analysis/memory_timeline.h): the
// allocated series of each rank that has one (the first 8), the reserved series of the first,
// its peak marked, and the cost model's predicted peak as a flat line when the analysis had a
// model; else "".
std::string AnalyzeMemoryChart(const std::string& id, const TraceAnalysis& a,
                               const std::optional<PredictionFigures>& prediction) {
  constexpr size_t kRanksDrawn = 8;
  LineChartData c;
  c.spec = {id + "-memory",
            "GPU memory over time",
            "Bytes the caching allocator held allocated (and reserved) on each rank's GPU, from the profiler's "
            "memory events, seconds from each rank's first memory event.",
            "time",
            "memory",
            "s",
            "B"};
  c.step = true;
  double t_max = 0;
  for (const RankAnalysis& r : a.ranks) {
    if (!r.memory || c.series.size() >= kRanksDrawn) continue;
    LineSeries allocated{fmt::format("rank {} allocated", r.rank), {}, {}},
        reserved{fmt::format("rank {} reserved", r.rank), {}, {}};
    for (const MemorySample& m : r.memory->samples) {
      allocated.x.push_back(m.t_s);
      allocated.y.push_back(static_cast<double>(m.allocated_bytes));
      if (m.reserved_bytes >= 0)
        reserved.x.push_back(m.t_s), reserved.y.push_back(static_cast<double>(m.reserved_bytes));
      t_max = std::max(t_max, m.t_s);
    }
    if (c.series.empty()) {
      c.markers.push_back({r.memory->peak.at_s, fmt::format("rank {} peak", r.rank)});
      if (!reserved.x.empty()) c.series.push_back(std::move(reserved));
    }
    c.series.push_back(std::move(allocated));
  }
  if (c.series.empty()) return "";
  if (prediction && std::isfinite(prediction->predicted_peak_allocated_bytes))
    c.series.push_back({"predicted peak allocated",
                        {0, t_max},
                        {prediction->predicted_peak_allocated_bytes, prediction->predicted_peak_allocated_bytes}});
  return RenderLineChart(c);
}

}  // namespace

std::string RenderAnalyzeSection(const ReportInput& in) {
  const AnalyzeDocument d = AnalyzeDocumentFromJson(in.doc, in.path);
  const TraceAnalysis& a = d.analysis;
  const std::string id = ChartId(in.path, "analyze");
  std::string html = Paragraph(fmt::format("{} rank{}, {} events.", a.ranks.size(), a.ranks.size() == 1 ? "" : "s",
                                           static_cast<double>(a.events)));
  html += AnalyzeRankChart(id, a);
  html += AnalyzeCategoryChart(id, a);
  html += AnalyzeBusbwChart(id, a);
  html += AnalyzePredictionChart(id, d.prediction);
  html += AnalyzeGraphChart(id, a);
  html += AnalyzeQueueChart(id, a);
  html += AnalyzeCopyBandwidthChart(id, a);
  html += AnalyzeKernelSequenceChart(id, a);
  html += AnalyzeCriticalPathChart(id, a);
  html += AnalyzeMemoryChart(id, a, d.prediction);
  html += AnalyzeStragglerTable(a.stragglers);
  html += AnalyzeDiffChart(id, d.diff);
  return html;
}

}  // namespace paratune
