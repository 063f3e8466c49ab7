#include "cli/analyze_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace paratune::cli {
namespace {

std::string PctCell(double x) { return std::isfinite(x) ? fmt::format("{:.2f}", x) : std::string("-"); }

std::string Ms(double s) { return fmt::format("{:.3f}", s * 1e3); }

std::string Trim(const std::string& s, size_t width) { return s.size() <= width ? s : s.substr(0, width - 3) + "..."; }

std::string Bandwidth(double bytes_per_s) {
  return bytes_per_s > 0 ? fmt::format("{:.1f}", bytes_per_s / 1e9) : std::string("-");
}

// One line saying which files were analysed only in part and why (--allow-partial).
std::string PartialLine(const TraceAnalysis& a) {
  std::string line = "PARTIAL ANALYSIS (--allow-partial): only what could be read is analysed:";
  for (size_t i = 0; i < a.partial.size(); ++i) {
    const std::string& path = a.partial[i];
    int64_t events = 0, bad = 0;
    std::string truncated_at;
    bool truncated = false;
    for (const RankAnalysis& r : a.ranks) {
      if (r.path != path) continue;
      events += r.events;
      bad += r.warnings.BadValues();
      if (r.warnings.truncated) truncated = true, truncated_at = r.warnings.truncated_at;
    }
    line += i ? "; " : " ";
    line += path;
    if (truncated)
      line += fmt::format(" is truncated (the file ends {}; {} events read)",
                          truncated_at.empty() ? "early" : truncated_at, events);
    if (bad)
      line += fmt::format("{} {} event{} or value{} with unusable numbers skipped", truncated ? "," : ":", bad,
                          bad == 1 ? "" : "s", bad == 1 ? "" : "s");
  }
  return line;
}

// The header: partial files, ranks, events and bytes read, the iterations analysed.
std::string Header(const TraceAnalysis& a, const AnalyzeReportOptions& o) {
  std::string out;
  if (!a.partial.empty()) out += PartialLine(a) + "\n";
  out += fmt::format("{} rank{}, {} events, {:.1f} MB of trace JSON read", a.ranks.size(),
                     a.ranks.size() == 1 ? "" : "s", a.events, static_cast<double>(a.bytes_read) / 1e6);
  if (o.read_seconds > 0)
    out += fmt::format(" in {:.2f} s ({:.0f} MB/s)", o.read_seconds,
                       static_cast<double>(a.bytes_read) / 1e6 / o.read_seconds);
  out += "\n";
  if (a.profiler_steps.empty()) {
    out += "iterations: no ProfilerStep#N ranges; the whole trace is analysed as one window\n";
  } else {
    out += fmt::format(
        "iterations analysed: ProfilerStep#{}..#{} ({}){}\n", a.profiler_steps.front(), a.profiler_steps.back(),
        a.profiler_steps.size(),
        a.options.include_last_step ? "" : "; the last step is dropped as HTA does (--include-last-step keeps it)");
  }

  return out;
}

// GPU time per rank (HTA definitions), with the exact-ns figures of rounded ranks.
std::string RankOverview(const TraceAnalysis& a) {
  std::string out;
  out += "\nGPU time per rank (HTA definitions, % of the span from the first to the last GPU event)\n";
  out += fmt::format("  {:>5} {:>11} {:>9} {:>13} {:>7} {:>10} {:>9} {:>12} {:>9}\n", "rank", "kernel ms", "compute %",
                     "non-compute %", "idle %", "overlap %", "step ms", "data load %", "warnings");
  bool any_rounded = false;
  for (const RankAnalysis& r : a.ranks) {
    any_rounded = any_rounded || r.rounded;
    out += fmt::format("  {:>5} {:>11} {:>9} {:>13} {:>7} {:>10} {:>9} {:>12} {:>9}\n", r.rank, Ms(r.temporal.window_s),
                       PctCell(r.temporal.compute_pct()), PctCell(r.temporal.non_compute_pct()),
                       PctCell(r.temporal.idle_pct()), PctCell(r.comm_overlap_pct),
                       r.step_time.count ? Ms(r.step_time.mean) : std::string("-"), PctCell(100 * r.dataloader_share),
                       r.warnings.Total());
  }
  out += "  overlap %: share of communication time during which a compute kernel also ran\n";
  if (any_rounded) {
    out += "  ns-resolution ranks: the figures above round each event to whole µs as HTA does; exact ns figures:\n";
    for (const RankAnalysis& r : a.ranks)
      if (r.rounded)
        out += fmt::format("  {:>5} {:>11} {:>9} {:>13} {:>7} {:>10}   (exact ns)\n", r.rank,
                           Ms(r.temporal_exact.window_s), PctCell(r.temporal_exact.compute_pct()),
                           PctCell(r.temporal_exact.non_compute_pct()), PctCell(r.temporal_exact.idle_pct()),
                           PctCell(r.comm_overlap_exact_pct));
  }

  return out;
}

// The spread of each figure across ranks, and of the steps with the widest spread.
std::string AcrossRanks(const TraceAnalysis& a) {
  std::string out;
  if (!a.cross_rank.empty()) {
    out += "\nAcross ranks\n";
    out += fmt::format("  {:<18} {:>10} {:>10} {:>10}   {}\n", "", "min", "median", "max", "ranks at min / max");
    for (const RankSpread& s : a.cross_rank) {
      const bool secs = s.metric == "step_time_s";
      const bool share = s.metric == "dataloader_share";
      const double k = secs ? 1e3 : share ? 100 : 1;
      const std::string label = secs                             ? "step ms"
                                : share                          ? "data load %"
                                : s.metric == "non_compute_pct"  ? "non-compute %"
                                : s.metric == "comm_overlap_pct" ? "overlap %"
                                                                 : s.metric.substr(0, s.metric.size() - 4) + " %";
      out += fmt::format("  {:<18} {:>10.2f} {:>10.2f} {:>10.2f}   {} / {}\n", label, s.min * k, s.median * k,
                         s.max * k, s.min_rank, s.max_rank);
    }
    if (!a.iterations.empty()) {
      // Many steps: the ten with the widest spread between the fastest and the slowest rank.
      std::vector<IterationSpread> shown = a.iterations;
      const size_t kShown = 10;
      if (shown.size() > kShown + 2) {
        std::stable_sort(shown.begin(), shown.end(), [](const IterationSpread& x, const IterationSpread& y) {
          return x.max_s - x.min_s > y.max_s - y.min_s;
        });
        shown.resize(kShown);
        std::sort(shown.begin(), shown.end(),
                  [](const IterationSpread& x, const IterationSpread& y) { return x.step < y.step; });
        out += fmt::format("  the {} of {} steps with the widest spread across ranks (all in --json):\n", kShown,
                           a.iterations.size());
      }
      out += fmt::format("  {:>8} {:>6} {:>10} {:>10} {:>10} {:>8}\n", "step", "ranks", "min ms", "median ms", "max ms",
                         "slowest");
      for (const IterationSpread& it : shown)
        out += fmt::format("  {:>8} {:>6} {:>10.3f} {:>10.3f} {:>10.3f} {:>8}\n", it.step, it.ranks, it.min_s * 1e3,
                           it.median_s * 1e3, it.max_s * 1e3,
                           it.slowest_rank >= 0 ? std::to_string(it.slowest_rank) : std::string("level"));
    }
  }

  return out;
}

// Stragglers: the late ranks, the steps where one made the others wait, per-rank figures.
std::string Stragglers(const TraceAnalysis& a) {
  std::string out;
  if (a.ranks.size() >= 2) {
    out += fmt::format("\nStragglers ({} collectives matched across ranks): ", a.stragglers.collectives_matched);
    if (a.stragglers.stragglers.empty()) {
      out += "none\n";
    } else {
      out += "\n";
      for (const auto& s : a.stragglers.ranks)
        if (s.straggler) out += fmt::format("  rank {}: {}\n", s.rank, s.reason);
    }
    if (!a.stragglers.by_step.empty()) {
      // The steps in which one rank made the others wait longest (intermittent stragglers).
      std::vector<StepStraggler> top = a.stragglers.by_step;
      std::stable_sort(top.begin(), top.end(),
                       [](const auto& x, const auto& y) { return x.caused_wait_s > y.caused_wait_s; });
      if (top.size() > 5) top.resize(5);
      out += "  steps where one rank made the others wait longest:\n";
      for (const StepStraggler& s : top)
        out += fmt::format(
            "    ProfilerStep#{}: rank {} arrived last, {} ms of waiting ({} ms by all late ranks, {} collectives)\n",
            s.step, s.rank, Ms(s.caused_wait_s), Ms(s.total_wait_s), s.collectives);
    }
    out += fmt::format("  {:>5} {:>9} {:>8} {:>13} {:>14} {:>10}\n", "rank", "step ms", "step z", "last arrivals",
                       "others wait ms", "waited ms");
    for (const auto& s : a.stragglers.ranks)
      out += fmt::format("  {:>5} {:>9} {:>8.2f} {:>13} {:>14} {:>10}\n", s.rank,
                         s.mean_step_time_s > 0 ? Ms(s.mean_step_time_s) : "-", s.step_time_robust_z,
                         fmt::format("{}/{}", s.last_arrivals, s.collectives_matched), Ms(s.caused_wait_s),
                         Ms(s.waited_s));
  }

  return out;
}

// One rank's GPU time by kernel type and category, its top kernels and its collectives.
std::string RankKernels(const RankAnalysis* r, const TraceAnalysis& a) {
  std::string out;
  out += fmt::format("\nRank {} in detail ({}{}){}\n", r->rank, r->path,
                     r->device_name.empty() ? "" : ", " + r->device_name,
                     a.ranks.size() > 1 ? " (--rank N for another)" : "");
  double kt_total = 0;
  for (const auto& k : r->kernel_types) kt_total += k.sum_s;
  out += "  GPU time by kernel type (HTA kernel_type_df)\n";
  for (const auto& k : r->kernel_types)
    out += fmt::format("    {:<56} {:>11} ms {:>6.1f} %\n", k.label, Ms(k.sum_s),
                       kt_total > 0 ? 100 * k.sum_s / kt_total : 0.0);
  double cat_total = 0;
  for (const auto& c : r->categories) cat_total += c.sum_s;
  out += "  Kernels by category (sum of kernel durations)\n";
  for (const auto& c : r->categories)
    out += fmt::format("    {:<14} {:>8} kernels {:>11} ms {:>6.1f} %\n", KernelCategoryName(c.category), c.count,
                       Ms(c.sum_s), cat_total > 0 ? 100 * c.sum_s / cat_total : 0.0);
  out += "  Top kernels\n";
  out += fmt::format("    {:<13} {:<12} {:>8} {:>11} {:>10} {:>10}  {}\n", "type", "category", "count", "total ms",
                     "mean us", "max us", "name");
  for (const auto& k : r->top_kernels)
    out += fmt::format("    {:<13} {:<12} {:>8} {:>11} {:>10.1f} {:>10.1f}  {}\n", HtaKernelTypeName(k.type),
                       KernelCategoryName(k.category), k.count, Ms(k.sum_s), k.mean_s * 1e6, k.max_s * 1e6,
                       Trim(ShortKernelName(k.name), 70));
  if (!r->collectives.empty()) {
    out += "  Collectives (bus bandwidth as nccl-tests defines it, where the kernel carries size and group)\n";
    out += fmt::format("    {:<15} {:>7} {:>11} {:>12} {:>12} {:>11} {:>11}\n", "kind", "count", "total ms",
                       "exposed ms", "bytes", "algbw GB/s", "busbw GB/s");
    for (const auto& c : r->collectives)
      out += fmt::format("    {:<15} {:>7} {:>11} {:>12} {:>12} {:>11} {:>11}\n", CollectiveName(c.kind), c.count,
                         Ms(c.total_s), Ms(c.exposed_s), c.sized_count ? fmt::format("{:.3g}", c.bytes) : "-",
                         Bandwidth(c.algbw_bytes_per_s), Bandwidth(c.busbw_bytes_per_s));
  }
  return out;
}

// HTA's launch queue and memory-copy bandwidth, and the CUDA graph replays, of one rank.
std::string RankCounters(const RankAnalysis* r) {
  std::string out;
  if (!r->queue_length.empty()) {
    out += "  Launch queue per stream (HTA: launched, not yet started; over the series' points)\n";
    out += fmt::format("    {:>8} {:>8} {:>8} {:>8} {:>8} {:>14}\n", "stream", "points", "mean", "median", "max",
                       "time-weighted");
    for (const QueueLengthRow& q : r->queue_length)
      out += fmt::format("    {:>8} {:>8} {:>8.2f} {:>8.1f} {:>8.0f} {:>14.2f}\n", q.stream, q.count, q.mean, q.p50,
                         q.max, q.time_weighted_mean);
  }
  if (!r->memory_bandwidth.empty()) {
    out += "  Memory copies in flight (HTA: GB/s summed over concurrent copies, while any runs)\n";
    out += fmt::format("    {:<16} {:>8} {:>10} {:>10} {:>10}\n", "kind", "points", "mean GB/s", "median", "max");
    for (const MemoryBandwidthRow& m : r->memory_bandwidth)
      out += fmt::format("    {:<16} {:>8} {:>10.3f} {:>10.3f} {:>10.3f}\n", m.kind, m.count, m.mean_gbps, m.p50_gbps,
                         m.max_gbps);
  }
  const GraphLaunchStats& g = r->graphs;
  if (g.launches > 0)
    out += fmt::format(
        "  CUDA graphs: {} replays launched {} GPU events, {:.1f} % of the GPU event time; a replay spans {:.1f} us "
        "on the GPU, its launch {:.1f} us on the CPU\n",
        g.launches, g.gpu_events, 100 * g.gpu_time_share, g.mean_replay_span_s * 1e6,
        g.cpu_launch_s * 1e6 / static_cast<double>(g.launches));
  return out;
}

// One rank's idle time per stream, launches, iterations and input warnings.
std::string RankTimes(const RankAnalysis* r) {
  std::string out;
  out += "  Idle time per stream (HTA: host_wait = waiting for the CPU to launch, kernel_wait = gaps < 30 us)\n";
  out += fmt::format("    {:>8} {:>14} {:>14} {:>14}\n", "stream", "host_wait ms", "kernel_wait ms", "other ms");
  for (size_t i = 0; i < r->idle.size();) {
    const int64_t stream = r->idle[i].stream;
    double v[3] = {0, 0, 0};
    for (; i < r->idle.size() && r->idle[i].stream == stream; ++i) {
      const int c = r->idle[i].category == "host_wait" ? 0 : r->idle[i].category == "kernel_wait" ? 1 : 2;
      v[c] = r->idle[i].idle_s;
    }
    out += fmt::format("    {:>8} {:>14} {:>14} {:>14}\n", stream, Ms(v[0]), Ms(v[1]), Ms(v[2]));
  }
  const LaunchStats& l = r->launch;
  out += fmt::format(
      "  CUDA launches: {} matched; mean launch delay {:.1f} us (max {:.1f}); {} short kernels (GPU time < launch time "
      "<= 50 us), "
      "{} launches > 50 us, {} delays > 100 us\n",
      l.launches, l.mean_launch_delay_s * 1e6, l.max_launch_delay_s * 1e6, l.short_kernels, l.runtime_outliers,
      l.launch_delay_outliers);
  if (!r->iterations.empty()) {
    out += fmt::format("  Step time: mean {} ms, median {} ms, min {} ms, max {} ms, CV {:.1f} %\n",
                       Ms(r->step_time.mean), Ms(r->step_time.median), Ms(r->step_time.min), Ms(r->step_time.max),
                       r->step_time.mean > 0 ? 100 * r->step_time.stddev / r->step_time.mean : 0.0);
    out += fmt::format("    {:>8} {:>9} {:>9} {:>10} {:>8} {:>9} {:>12}\n", "step", "cpu ms", "gpu ms", "compute %",
                       "idle %", "overlap %", "data load ms");
    for (const auto& it : r->iterations)
      out += fmt::format("    {:>8} {:>9} {:>9} {:>10} {:>8} {:>9} {:>12}\n", it.step, Ms(it.cpu_step_s),
                         Ms(it.gpu.window_s), PctCell(it.gpu.compute_pct()), PctCell(it.gpu.idle_pct()),
                         PctCell(it.comm_overlap_pct), Ms(it.dataloader_s));
  }
  if (r->warnings.Total() > 0) {
    const TraceWarnings& w = r->warnings;
    out += fmt::format(
        "  input warnings: {} truncated, {} bad numbers, {} missing fields, {} negative durations, {} invalid UTF-8, "
        "{} malformed "
        "events (skipped; the rest analysed)\n",
        w.truncated, w.bad_number, w.missing_field, w.negative_duration, w.invalid_utf8, w.malformed_event);
  }

  return out;
}

std::string Gb(int64_t bytes) {
  return bytes < 0 ? std::string("-") : fmt::format("{:.2f}", static_cast<double>(bytes) / 1e9);
}

std::string RunningText(const std::vector<std::string>& running) {
  std::string out;
  for (const std::string& op : running) out += (out.empty() ? "" : " > ") + Trim(op, 60);
  return out.empty() ? std::string("-") : out;
}

// The rank's GPU memory from the profiler's memory events: the peak, where it happens, per step.
std::string RankMemory(const RankAnalysis* r) {
  if (!r->memory) return "";
  const MemoryTimeline& m = *r->memory;
  std::string out = fmt::format(
      "  GPU memory (device {}, {} memory events{}): peak allocated {} GB at {:.6f} s, reserved then {} GB, "
      "reserved peak {} GB\n    during: {}\n",
      m.device_id, m.events, m.absolute ? "" : "; no allocator totals: bytes since the profile started",
      Gb(m.peak.allocated_bytes), m.peak.at_s, Gb(m.peak.reserved_bytes), Gb(m.peak_reserved_bytes),
      RunningText(m.peak.running));
  if (m.steps.empty()) return out;
  out += fmt::format("    {:>8} {:>14} {:>13} {:>12}  {}\n", "step", "peak alloc GB", "reserved GB", "at s",
                     "during (outermost)");
  for (const MemoryPeak& p : m.steps)
    out += fmt::format("    {:>8} {:>14} {:>13} {:>12.6f}  {}\n", p.step, Gb(p.allocated_bytes), Gb(p.reserved_bytes),
                       p.at_s, p.running.empty() ? std::string("-") : Trim(p.running.front(), 60));
  return out;
}

// The measurement beside the cost model's prediction.
std::string Prediction(const AnalyzeReportOptions& o) {
  std::string out;
  const PredictionComparison& p = *o.prediction;
  out += fmt::format("\nMeasured against the cost model ({})\n", o.prediction_label);
  out += fmt::format("  {:<22} {:>12} {:>12}\n", "", "measured", "predicted");
  out += fmt::format("  {:<22} {:>12} {:>12}   error {:+.1f} %{}\n", "step time ms", Ms(p.measured_step_time_s),
                     Ms(p.predicted_step_time_s), 100 * p.step_time_error,
                     p.measured_from_steps ? "" : " (no ProfilerStep: the GPU window is taken as one step)");
  out += fmt::format("  {:<22} {:>12.1f} {:>12.1f}{}\n", "MFU %", 100 * p.measured_mfu, 100 * p.predicted_mfu,
                     !p.mfu_impossible    ? ""
                     : p.measured_mfu > 1 ? "   IMPOSSIBLE (above 100%)"
                                          : "   IMPOSSIBLE (above the compute share)");
  out +=
      fmt::format("  {:<22} {:>12.2f} {:>12.2f}\n", "compute %", p.measured.compute_pct(), p.predicted.compute_pct());
  out += fmt::format("  {:<22} {:>12.2f} {:>12.2f}\n", "non-compute %", p.measured.non_compute_pct(),
                     p.predicted.non_compute_pct());
  out += fmt::format("  {:<22} {:>12.2f} {:>12.2f}\n", "idle %", p.measured.idle_pct(), p.predicted.idle_pct());
  out += fmt::format("  {:<22} {:>12} {:>12.2f}{}\n", "peak allocated GB",
                     std::isnan(p.measured_peak_allocated_bytes)
                         ? std::string("-")
                         : fmt::format("{:.2f}", p.measured_peak_allocated_bytes / 1e9),
                     p.predicted_peak_allocated_bytes / 1e9,
                     std::isnan(p.measured_peak_allocated_bytes) ? "   (no memory events: profile_memory=True)" : "");
  out +=
      "  (both breakdowns from timeline/breakdown.cc: measured over the trace's kernels, predicted over the "
      "simulated step)\n";
  if (!p.mfu_warning.empty()) out += "  warning: " + p.mfu_warning + "\n";
  return out;
}

// HTA's frequent kernel sequences of one rank (analysis/kernel_sequences.h), when asked for.
std::string RankKernelSequences(const TraceAnalysis& a, const RankAnalysis* r) {
  const std::string& op = a.options.kernel_sequence_operator;
  if (op.empty()) return "";
  if (r->kernel_sequences.empty())
    return fmt::format("  Kernel sequences: no outermost operator named like '{}' launches {} or more GPU events\n", op,
                       a.options.min_sequence_length);
  std::string out = fmt::format(
      "  Kernel sequences launched by the outermost operators named like '{}' (HTA; {} GPU events or more)\n", op,
      a.options.min_sequence_length);
  out += fmt::format("    {:>7} {:>11} {:>11}  {}\n", "count", "GPU ms", "CPU ms", "operator | GPU events in order");
  for (const KernelSequence& q : r->kernel_sequences) {
    out += fmt::format("    {:>7} {:>11} {:>11}  {}\n", q.count, Ms(q.gpu_time_s), Ms(q.cpu_time_s),
                       Trim(q.pattern.front(), 70));
    constexpr size_t kShown = 12;  // GPU events listed per pattern; --json has them all
    for (size_t i = 1; i < q.pattern.size() && i <= kShown; ++i)
      out += fmt::format("    {:>31}  | {}\n", "", Trim(ShortKernelName(q.pattern[i]), 70));
    if (q.pattern.size() > kShown + 1)
      out += fmt::format("    {:>31}  | ... {} more (--json lists them)\n", "", q.pattern.size() - 1 - kShown);
  }
  return out;
}

// HTA's critical path of one rank (analysis/critical_path.h), when asked for.
std::string RankCriticalPath(const TraceAnalysis& a, const RankAnalysis* r) {
  if (!a.options.critical_path) return "";
  const CriticalPathOptions& o = *a.options.critical_path;
  const std::string window =
      o.annotation.empty()
          ? std::string("the whole trace")
          : fmt::format("'{}' instance{} {}", o.annotation, o.first_instance == o.last_instance ? "" : "s",
                        o.first_instance == o.last_instance ? std::to_string(o.first_instance)
                                                            : fmt::format("{}-{}", o.first_instance, o.last_instance));
  if (!r->critical_path) return fmt::format("  Critical path of {}: none ({})\n", window, r->critical_path_missing);
  const TraceCriticalPath& c = *r->critical_path;
  std::string out = fmt::format(
      "  Critical path of {} (HTA): {} ms over a {} ms window, {} events on it ({} nodes, {} edges in the graph)\n",
      window, Ms(c.length_s), Ms(c.window_end_s - c.window_start_s), c.path_events, c.graph_nodes, c.graph_edges);
  for (const CriticalBoundShare& b : c.bounds)
    if (b.bound != CriticalBound::kDependency)
      out += fmt::format("    {:<28} {:>11} ms {:>6.1f}%\n", kCriticalBoundNames.Name(b.bound), Ms(b.time_s), b.pct);
  if (c.collective_wait_s > 0) {
    out += fmt::format("    of the communication, {} ms waiting for the last rank to arrive:", Ms(c.collective_wait_s));
    for (const CriticalWait& w : c.waited_for)
      out += fmt::format(" rank {} {} ms ({}x)", w.rank, Ms(w.wait_s), w.collectives);
    out += "\n";
  }
  if (!c.top_events.empty()) out += fmt::format("    {:>11}  {:<26} {}\n", "ms on path", "bound by", "event");
  for (const CriticalEvent& e : c.top_events)
    out += fmt::format("    {:>11}  {:<26} {}\n", Ms(e.time_s), kCriticalBoundNames.Name(e.bound),
                       Trim(ShortKernelName(e.name), 70));
  return out;
}

}  // namespace

std::string FormatAnalysis(const TraceAnalysis& a, const AnalyzeReportOptions& o) {
  const RankAnalysis* r = &a.ranks.front();  // the rank shown in detail
  for (const RankAnalysis& x : a.ranks)
    if (x.rank == o.detail_rank) r = &x;
  std::string out = Header(a, o) + RankOverview(a) + AcrossRanks(a) + Stragglers(a) + RankKernels(r, a) + RankTimes(r) +
                    RankCounters(r) + RankKernelSequences(a, r) + RankCriticalPath(a, r) + RankMemory(r);
  if (o.prediction) out += Prediction(o);
  return out;
}

}  // namespace paratune::cli
