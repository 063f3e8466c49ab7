// Rule throughput_change_point (issue 11, rule 5): where a run's throughput steps down (or up)
// and stays there, and slow drift over the run, from the training log's iteration lines. The
// series is one value per logged line: tokens/s when the log gives it (torchtitan, a tokens/s
// CSV), else TFLOP/s/GPU (Megatron --log-throughput), else 1 / "elapsed time per iteration";
// each is proportional to the run's speed. The steps and the drift come from
// analysis/change_points.h (optimal partition under the MBIC penalty with AR(1)-robust noise,
// then a steps-versus-trend model choice); docs/diagnose-series.md gives the method, its
// tolerance and its measured detection and false-positive rates.
//
// Not findings: the warm-up at the start of the log (and after each restart), sub-percent wander
// (steps below kMinRelativeStep), an isolated one-line hiccup (the median-of-3 pre-filter) and
// a dip right after a checkpoint save (left to checkpoint_stall: the first line logged after a
// save line is dropped from the series, and the shortest segment is kMinSegmentLines lines, so a
// dip of one interval cannot be a segment of its own).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/change_points.h"
#include "diagnose/checkpoint_window.h"
#include "diagnose/rules.h"
#include "util/timestamp.h"

namespace paratune {
namespace {

// Warm-up: Megatron's first logged interval holds the first iterations' compilation, NCCL
// communicator set-up and allocator growth, so it is always dropped; after it, lines are dropped
// while they are more than kWarmupBand away from the settled level (the median of the next
// kSettleWindow lines), up to kMaxWarmupShare of the series. 5% is five times the 1% noise of a
// steady run (the "sub-percent wander") and well inside a real warm-up's first intervals.
constexpr size_t kWarmupMinLines = 1;
constexpr double kWarmupBand = 0.05;
constexpr size_t kSettleWindow = 10;
constexpr double kMaxWarmupShare = 0.2;
// Fewer lines than this after warm-up: too short to tell a step from noise (two minimum segments
// and the settle window).
constexpr size_t kMinSeriesLines = 20;
// The shortest segment, in logged lines: a level must hold for five log intervals (50 iterations
// at Megatron's usual --log-interval 10) to be a change; shorter dips are hiccups or stalls.
constexpr size_t kMinSegmentLines = 5;
// Steps below 2% of the level are wander, not findings (the issue: "sub-percent wander ... are
// not findings"): a steady run's 1% noise plus a sub-percent wander makes stretches whose levels
// differ by 1-2% (measured on the clean control of throughput_change_point_test.cc); and a step
// under 2% costs less than kWarningLoss whatever its duration. Drift: 2% over the run.
constexpr double kMinRelativeStep = 0.02;
constexpr double kMinRelativeDrift = 0.02;

enum class Metric { kTokens, kTflops, kInverseElapsed };

struct MetricInfo {
  const char* name;  // as printed in messages
  const char* unit;  // of the evidence value (SI)
  double to_si;      // log value -> SI
};

MetricInfo Info(Metric m) {
  switch (m) {
    case Metric::kTokens:
      return {"tokens/s", "tokens/s", 1.0};
    case Metric::kTflops:
      return {"TFLOP/s/GPU", "FLOP/s", 1e12};
    case Metric::kInverseElapsed:
      return {"iterations/s (1 / elapsed time per iteration)", "1/s", 1.0};
  }
  return {"", "", 1.0};
}

double Value(const IterationRecord& r, Metric m) {
  switch (m) {
    case Metric::kTokens:
      return r.tokens_per_s_per_gpu;
    case Metric::kTflops:
      return r.tflops_per_gpu;
    case Metric::kInverseElapsed:
      return r.elapsed_per_iteration_s > 0 ? 1.0 / r.elapsed_per_iteration_s : kNotGiven;
  }
  return kNotGiven;
}

bool Usable(double v) { return std::isfinite(v) && v > 0; }

// The metric most lines of the log carry, in the order of preference above.
bool PickMetric(const TrainingLog& log, Metric* out) {
  for (Metric m : {Metric::kTokens, Metric::kTflops, Metric::kInverseElapsed}) {
    size_t n = 0;
    for (const auto& r : log.iterations) n += Usable(Value(r, m));
    if (n > 0 && 2 * n >= log.iterations.size()) {
      *out = m;
      return true;
    }
  }
  return false;
}

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

// The number of leading samples of `x` that are warm-up.
size_t WarmupLength(const std::vector<double>& x) {
  const size_t cap = static_cast<size_t>(kMaxWarmupShare * static_cast<double>(x.size()));
  size_t i = kWarmupMinLines;
  while (i < cap && i + kSettleWindow < x.size()) {
    const double settled = MedianOf({x.begin() + static_cast<std::ptrdiff_t>(i + 1),
                                     x.begin() + static_cast<std::ptrdiff_t>(i + 1 + kSettleWindow)});
    if (std::fabs(x[i] - settled) <= kWarmupBand * settled) break;
    ++i;
  }
  return std::min(i, x.size());
}

// One stretch of the log without a restart, after warm-up.
struct Run {
  std::vector<const IterationRecord*> records;
  std::vector<double> values;
};

// Splits the log at restarts (an iteration number that does not increase) and drops, in each
// part, the lines right after a checkpoint save and the warm-up.
std::vector<Run> Runs(const TrainingLog& log, Metric m) {
  std::vector<int> save_lines, async_lines;
  for (const auto& c : log.checkpoints) {
    if (c.kind != CheckpointEventKind::kSaved) save_lines.push_back(c.line);
    if (c.kind == CheckpointEventKind::kAsyncScheduled) async_lines.push_back(c.line);
  }
  std::sort(save_lines.begin(), save_lines.end());
  std::sort(async_lines.begin(), async_lines.end());
  // Iteration lines still inside an asynchronous save's slow window (checkpoint_window.h): the
  // save's cost belongs to checkpoint_stall, not to a change of level.
  int async_left = 0;
  size_t next_async = 0;
  std::vector<Run> parts(1);
  int64_t prev_iteration = -1;
  int prev_line = 0;
  for (const auto& r : log.iterations) {
    if (r.iteration >= 0 && prev_iteration >= 0 && r.iteration <= prev_iteration) parts.emplace_back();
    // A save line between the previous iteration line and this one: this interval holds the save.
    const bool after_save = std::upper_bound(save_lines.begin(), save_lines.end(), prev_line) !=
                                std::lower_bound(save_lines.begin(), save_lines.end(), r.line) &&
                            prev_line > 0;
    bool in_async_window = false;
    while (next_async < async_lines.size() && async_lines[next_async] < r.line) {
      async_left = 1 + kAsyncSaveSlowIntervals;  // the interval holding the save, then the slowed ones
      ++next_async;
    }
    if (async_left > 0) {
      in_async_window = true;
      --async_left;
    }
    prev_iteration = r.iteration;
    prev_line = r.line;
    const double v = Value(r, m);
    if (!Usable(v) || after_save || in_async_window) continue;
    parts.back().records.push_back(&r);
    parts.back().values.push_back(v);
  }
  for (Run& p : parts) {
    const size_t w = WarmupLength(p.values);
    p.records.erase(p.records.begin(), p.records.begin() + static_cast<std::ptrdiff_t>(w));
    p.values.erase(p.values.begin(), p.values.begin() + static_cast<std::ptrdiff_t>(w));
  }
  return parts;
}

// Position of a record on the run's time axis: its timestamp when the log has them, else its
// iteration, else its sample index.
double Clock(const Run& run, size_t i) {
  const IterationRecord& r = *run.records[i];
  if (std::isfinite(run.records.front()->time_s) && std::isfinite(run.records.back()->time_s) &&
      std::isfinite(r.time_s))
    return r.time_s;
  if (run.records.front()->iteration >= 0) return static_cast<double>(r.iteration);
  return static_cast<double>(i);
}

std::string When(const IterationRecord& r) {
  std::string s;
  if (r.iteration >= 0) s = fmt::format("iteration {}", r.iteration);
  if (std::isfinite(r.time_s)) s += (s.empty() ? "" : " ") + std::string("(") + FormatTimestamp(r.time_s) + ")";
  if (s.empty()) s = fmt::format("line {}", r.line);
  return s;
}

std::string LogLine(const TrainingLog& log, const IterationRecord& r) { return fmt::format("{}:{}", log.path, r.line); }

void AddTimeRange(FindingWhere* w, const IterationRecord& a, const IterationRecord& b) {
  if (std::isfinite(a.time_s) && std::isfinite(b.time_s)) w->time_ranges_s.push_back({a.time_s, b.time_s});
}

// The finding of the series' change point k: a drop, its loss the drop's size times the share of
// the log's time spent at the lower level, or a rise (info).
Finding ChangeFinding(const TrainingLog& log, const MetricInfo& info, const Run& run, const SeriesAnalysis& a, size_t k,
                      double span, double level, const Evidence& noise_sigma, const Evidence& noise_rho) {
  const size_t n = run.values.size();
  const ChangePoint& c = a.changes[k];
  const IterationRecord& at = *run.records[c.index];
  const IterationRecord& before = *run.records[c.index - 1];
  const bool drop = c.relative_step < 0;
  // The slower level lasts until a later segment is back within kMinRelativeStep of the level
  // before the drop, or to the end of the log.
  size_t end = n - 1;
  if (drop)
    for (size_t j = k + 1; j < a.changes.size(); ++j)
      if (a.changes[j].mean_after >= c.mean_before * (1 - kMinRelativeStep)) {
        end = a.changes[j].index - 1;
        break;
      }
  // Lost share: the drop's size times the share of the log's time spent at the lower level.
  const double share = (Clock(run, end) - Clock(run, c.index)) / span;
  const double loss = drop ? std::clamp(-c.relative_step * share, 0.0, 1.0) : 0.0;
  Finding f;
  f.rule = "throughput_change_point";
  f.severity = drop ? SeverityForLoss(loss) : Severity::kInfo;
  f.loss_fraction = loss;
  IterationRecord start = before;  // the change's first iteration, at the time of the line before it
  start.iteration = before.iteration >= 0 ? before.iteration + 1 : at.iteration;
  f.title = fmt::format("Throughput {} {:.1f}% from {}", drop ? "dropped" : "rose", std::fabs(c.relative_step) * 100,
                        When(start));
  f.message = fmt::format(
      "{}: {} changes from {:.4g} to {:.4g} ({:+.1f}%) between {} and {} and stays there for {:.0f}% of the "
      "logged time{}; noise {:.2f}% of the level, lag-1 autocorrelation {:.2f}.",
      log.path, info.name, c.mean_before, c.mean_after, c.relative_step * 100, When(before), When(at), share * 100,
      drop ? fmt::format(", costing {:.1f}% of the run's throughput", loss * 100) : std::string(),
      a.noise.sigma / level * 100, a.noise.rho);
  f.fix = drop ? "Find what changed at that time: compare GPU telemetry (clocks, throttle reasons, temperature), "
                 "nccl-tests and the node list before and after it (a throttling or replaced GPU, a degraded link "
                 "or a job sharing the network, a data shard with longer sequences); pass the telemetry to "
                 "`paratune diagnose` with the log to have it checked."
               : "Nothing to fix if the rise is expected (e.g. after a restart on better nodes); otherwise the "
                 "slower part before it is the one to explain.";
  f.evidence = {{"relative step", c.relative_step, "fraction", LogLine(log, at)},
                {"throughput before", c.mean_before * info.to_si, info.unit, LogLine(log, before)},
                {"throughput after", c.mean_after * info.to_si, info.unit, LogLine(log, at)},
                {"share of logged time at the new level", share, "fraction", log.path},
                noise_sigma,
                noise_rho};
  // The change happened within the interval logged by `at` (at least half of which is at the new
  // level) or just before it: reported as that interval's first iteration, and in time from the
  // line before it to the end of the new level.
  if (at.iteration >= 0) f.where.iterations.push_back(before.iteration >= 0 ? before.iteration + 1 : at.iteration);
  AddTimeRange(&f.where, before, *run.records[end]);
  f.where.lines.push_back(LogLine(log, at));
  return f;
}

// The finding of the series' slow drift (a.drift.found).
Finding DriftFinding(const TrainingLog& log, const MetricInfo& info, const Run& run, const SeriesAnalysis& a,
                     double level, const Evidence& noise_sigma, const Evidence& noise_rho) {
  const size_t n = run.values.size();
  const IterationRecord& first = *run.records.front();
  const IterationRecord& last = *run.records.back();
  const bool decline = a.drift.relative_change < 0;
  // A linear decline by D over the logged time loses D / 2 of the throughput on average.
  const double loss = decline ? std::clamp(-a.drift.relative_change / 2, 0.0, 1.0) : 0.0;
  Finding f;
  f.rule = "throughput_change_point";
  f.severity = decline ? SeverityForLoss(loss) : Severity::kInfo;
  f.loss_fraction = loss;
  f.title = fmt::format("Throughput {} {:.1f}% over the run (slow drift) from {} to {}", decline ? "declines" : "rises",
                        std::fabs(a.drift.relative_change) * 100, When(first), When(last));
  f.message = fmt::format(
      "{}: {} drifts by {:+.1f}% over {} logged lines (least-squares slope {:.3g} per line, t = {:.1f} with the "
      "AR(1)-corrected standard error; found when |t| > {:.0f}){}.",
      log.path, info.name, a.drift.relative_change * 100, n, a.drift.slope_per_sample, a.drift.t_statistic, kDriftMinT,
      decline ? fmt::format(", costing {:.1f}% of the run's throughput on average", loss * 100) : "");
  f.fix = decline ? "A slow decline points at something that accumulates: checkpoint stalls growing with the "
                    "checkpoint (see checkpoint_stall), a data-loader or page cache running dry, creeping thermal "
                    "throttling (pass GPU telemetry), growing expert imbalance (pass expert token counts), or "
                    "memory fragmentation (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True)."
                  : "Nothing to fix.";
  f.evidence = {{"relative change over the run", a.drift.relative_change, "fraction", log.path},
                {"drift t statistic", a.drift.t_statistic, "", log.path},
                {"median throughput", level * info.to_si, info.unit, log.path},
                noise_sigma,
                noise_rho};
  if (first.iteration >= 0) f.where.iterations = {first.iteration, last.iteration};
  AddTimeRange(&f.where, first, last);
  f.where.lines = {LogLine(log, first), LogLine(log, last)};
  return f;
}

void CheckRun(const TrainingLog& log, Metric m, const Run& run, std::vector<Finding>* out) {
  const size_t n = run.values.size();
  if (n < kMinSeriesLines) return;
  ChangePointOptions o;
  o.min_segment = kMinSegmentLines;
  o.min_relative_step = kMinRelativeStep;
  o.median3_prefilter = true;
  const SeriesAnalysis a = AnalyzeSeries(run.values, o, kMinRelativeDrift);
  const MetricInfo info = Info(m);
  const double span = Clock(run, n - 1) - Clock(run, 0);
  if (!(span > 0)) return;
  const double level = MedianOf(run.values);
  const Evidence noise_sigma{"noise sigma (relative to the level)", a.noise.sigma / level, "fraction", log.path};
  const Evidence noise_rho{"noise lag-1 autocorrelation", a.noise.rho, "", log.path};

  for (size_t k = 0; k < a.changes.size(); ++k)
    out->push_back(ChangeFinding(log, info, run, a, k, span, level, noise_sigma, noise_rho));

  if (a.drift.found) out->push_back(DriftFinding(log, info, run, a, level, noise_sigma, noise_rho));
}

class ThroughputChangePointRule : public Rule {
 public:
  const char* Name() const override { return "throughput_change_point"; }
  const char* Summary() const override {
    return "steps and slow drift in the logged throughput (optimal partition under MBIC, AR(1)-robust noise)";
  }
  void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const override {
    for (const TrainingLog& log : in.logs) {
      Metric m;
      if (!PickMetric(log, &m)) continue;
      for (const Run& run : Runs(log, m)) CheckRun(log, m, run, out);
    }
  }
};

}  // namespace

std::unique_ptr<Rule> MakeThroughputChangePointRule() { return std::make_unique<ThroughputChangePointRule>(); }

}  // namespace paratune
