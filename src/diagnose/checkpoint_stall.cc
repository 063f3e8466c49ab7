// checkpoint_stall (issue 11, rule 6): periodic stalls of a training log aligned with its
// checkpoint saves, or, without save lines, at a fixed iteration period.
//
// Method (docs/diagnose-logs.md). For each logged interval i (from one iteration line to the
// next, n_i iterations) the time lost is the wall time beyond the run's typical pace:
//   with timestamps:    lost_i = (t_i - t_{i-1}) - n_i * w0_i,  w0_i = median of gap/n over the
//                       intervals i-10..i+10 (the local pace, which follows a throughput change);
//   without timestamps: lost_i = n_i * (elapsed_i - e0_i),      e0_i = the same median of elapsed.
// The timestamp gap sees every kind of stall: since late 2023 Megatron-LM stops its interval timer
// during a synchronous save (megatron/training/training.py save_checkpoint_and_time(): "Stop timer
// to get accurate train interval time and exclude checkpointing duration"), so such a save shows
// only in the gap and in the save-checkpoint timer; older versions fold it into "elapsed time per
// iteration"; an asynchronous save slows the iterations after it. The noise of lost_i is
// sigma = 1.4826 MAD (Iglewicz & Hoaglin 1993; util/stats.h).
// A save at iteration s costs the interval that contains it (prev < = s < iteration) and, when
// it is asynchronous, the kAsyncWindowIntervals intervals after it; its lost time is the sum of
// their (signed) lost_i, clamped at 0, and it is visible when that exceeds the threshold below.
// A save at or after the last logged iteration (the final save when training ends) costs the
// training nothing measurable and is not a stall.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "diagnose/checkpoint_window.h"
#include "diagnose/rules.h"
#include "util/stats.h"
#include "util/timestamp.h"

namespace paratune {
namespace {

// Fewer logged intervals than this carry no usable baseline.
constexpr size_t kMinIntervals = 8;
// The baseline pace of an interval is the median over this many intervals on each side: wide
// enough that an asynchronous save's few slow intervals stay a minority (4 of 21), narrow enough
// to follow a step change of the throughput.
constexpr size_t kBaselineHalfWindow = 10;
// A stall must stand out of the interval noise by the modified z-score cut-off of Iglewicz &
// Hoaglin (1993), 3.5 ...
constexpr double kOutlierZ = 3.5;
// ... and be at least 5% of the interval's own time (below that it is within the wander of a
// healthy run and costs under the rule's info level) ...
constexpr double kMinStallShareOfInterval = 0.05;
// ... and two timestamp quanta (Megatron's pre-2026 timestamps have whole seconds).
constexpr double kQuantaPerStall = 2;
// An asynchronous save's cost is summed over the logged intervals up to this many after the one
// that holds the save (diagnose/checkpoint_window.h).
constexpr int kAsyncWindowIntervals = kAsyncSaveSlowIntervals;
// A finding needs at least this many visible stalls, and, with save lines, at least this share of
// the saves visible (one slow save is an incident, not a pattern).
constexpr int kMinVisibleStalls = 2;
constexpr double kMinVisibleShare = 0.5;
// Without save lines: at least this many stalls whose spacing agrees with the median spacing
// within one log interval or 10%, for at least this share of the spacings.
constexpr int kMinPeriodicStalls = 3;
constexpr double kPeriodTolerance = 0.10;
constexpr double kMinPeriodicShare = 0.75;
// ... stalls that are a minority of the intervals (at most a quarter) and at least 3 log
// intervals apart: a slow stretch or a slower second half is a throughput change, not a stall.
constexpr double kMaxStalledShare = 0.25;
constexpr double kMinPeriodIntervals = 3;

struct Interval {
  size_t rec = 0;  // index of the record ending it
  int64_t start_iteration = 0, end_iteration = 0;
  double start_s = kNotGiven, end_s = kNotGiven;
  double expected_s = 0;  // n * baseline
  double lost_s = 0;
};

struct Save {
  int64_t iteration = 0;
  bool async = false;
  int line = 0;
  double time_s = kNotGiven;
  double timer_max_s = kNotGiven;  // the save-checkpoint timer after it
  double lost_s = 0;
  double threshold_s = 0;
  double range_start_s = kNotGiven, range_end_s = kNotGiven;
  bool visible = false;
};

double Median(std::vector<double> v) { return MedianAndMad(v).median; }

// The lost time an interval (or a save's intervals) must exceed to be a stall: out of the
// interval noise sigma, a share of the expected time, and two timestamp quanta.
struct StallThreshold {
  double sigma = 0, quantum_s = 0;
  double operator()(double expected_s, int intervals) const {
    return std::max({kOutlierZ * sigma * std::sqrt(static_cast<double>(intervals)),
                     kMinStallShareOfInterval * expected_s, kQuantaPerStall * quantum_s});
  }
};

// The logged intervals (from one iteration line to the next) and, in pace, each one's time per
// iteration: from the timestamps when timed, else the logged elapsed time.
std::vector<Interval> LoggedIntervals(const std::vector<IterationRecord>& recs, bool timed, std::vector<double>* pace) {
  std::vector<Interval> iv;
  for (size_t i = 1; i < recs.size(); ++i) {
    const auto& r = recs[i];
    if (r.interval_iterations <= 0 || r.iteration < 0) continue;
    Interval x;
    x.rec = i;
    x.start_iteration = recs[i - 1].iteration;
    x.end_iteration = r.iteration;
    x.start_s = recs[i - 1].time_s;
    x.end_s = r.time_s;
    const double n = static_cast<double>(r.interval_iterations);
    pace->push_back(timed ? (x.end_s - x.start_s) / n : r.elapsed_per_iteration_s);
    iv.push_back(x);
  }
  return iv;
}

// Sets each interval's expected and lost time against its local pace, appending the lost times
// to lost; false when a local pace is not above 0.
bool SetIntervalBaselines(const std::vector<IterationRecord>& recs, const std::vector<double>& pace,
                          std::vector<Interval>* intervals, std::vector<double>* lost) {
  std::vector<Interval>& iv = *intervals;
  // The typical pace around each interval: the median over its neighbours, so that a step
  // change or a slow drift of the throughput (rule throughput_change_point) is not read as stalls.
  std::vector<double> window;
  for (size_t k = 0; k < iv.size(); ++k) {
    const size_t lo = k >= kBaselineHalfWindow ? k - kBaselineHalfWindow : 0;
    const size_t hi = std::min(iv.size() - 1, k + kBaselineHalfWindow);
    window.assign(pace.begin() + static_cast<std::ptrdiff_t>(lo), pace.begin() + static_cast<std::ptrdiff_t>(hi) + 1);
    std::nth_element(window.begin(), window.begin() + static_cast<std::ptrdiff_t>(window.size() / 2), window.end());
    const double w0 = window[window.size() / 2];
    if (!(w0 > 0)) return false;
    const double n = static_cast<double>(recs[iv[k].rec].interval_iterations);
    iv[k].expected_s = n * w0;
    iv[k].lost_s = n * (pace[k] - w0);
    lost->push_back(iv[k].lost_s);
  }
  return true;
}

// The saves, one per iteration, in order, each with its save-checkpoint timer.
std::map<int64_t, Save> CheckpointSaves(const TrainingLog& log) {
  const auto& recs = log.iterations;
  std::map<int64_t, Save> saves;
  for (const auto& c : log.checkpoints) {
    if (c.kind == CheckpointEventKind::kSaved) continue;
    Save& s = saves[c.iteration];
    if (s.line == 0) {
      s.iteration = c.iteration;
      s.line = c.line;
      s.time_s = c.time_s;
    }
    if (c.kind == CheckpointEventKind::kAsyncScheduled) s.async = true;
  }
  for (auto& [it, s] : saves) {
    // Its timer block comes before the next iteration line.
    const auto next = std::upper_bound(recs.begin(), recs.end(), s.line,
                                       [](int line, const IterationRecord& r) { return line < r.line; });
    const int next_line = next == recs.end() ? std::numeric_limits<int>::max() : next->line;
    for (const auto& t : log.timers)
      if (t.line > s.line && t.line < next_line &&
          (t.name == "save-checkpoint" || t.name == "save-checkpoint-non-persistent")) {
        s.timer_max_s = t.max_s;
        break;
      }
  }
  return saves;
}

// The saves during training that an interval measures, each with its lost time, threshold,
// visibility and time range.
std::vector<Save> MeasureSaves(std::map<int64_t, Save> saves, const std::vector<Interval>& iv, int64_t last_iteration,
                               const StallThreshold& threshold) {
  std::vector<Save> kept;
  for (auto& [it, s] : saves) {
    if (it >= last_iteration || it < iv.front().start_iteration) continue;  // final save, or before the log
    size_t k = 0;
    while (k < iv.size() && !(iv[k].start_iteration <= it && it < iv[k].end_iteration)) ++k;
    if (k == iv.size()) continue;  // inside a restart gap: no interval measures it
    const size_t last = std::min(iv.size() - 1, k + (s.async ? kAsyncWindowIntervals : 0));
    double sum = 0, expected = 0;
    for (size_t j = k; j <= last; ++j) {
      sum += iv[j].lost_s;
      expected += iv[j].expected_s;
    }
    s.lost_s = std::max(0.0, sum);
    s.threshold_s = threshold(expected / static_cast<double>(last - k + 1), static_cast<int>(last - k + 1));
    s.visible = s.lost_s > s.threshold_s;
    s.range_start_s = iv[k].start_s;
    s.range_end_s = iv[last].end_s;
    kept.push_back(s);
  }
  return kept;
}

class CheckpointStallRule : public Rule {
 public:
  const char* Name() const override { return "checkpoint_stall"; }
  const char* Summary() const override {
    return "periodic stalls (timestamp gaps, slow iterations) aligned with checkpoint saves or a fixed iteration "
           "period";
  }

  void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const override {
    for (const TrainingLog& log : in.logs) CheckLog(log, out);
  }

 private:
  void CheckLog(const TrainingLog& log, std::vector<Finding>* out) const {
    const auto& recs = log.iterations;
    // Timestamps when every iteration line has one; else the per-iteration elapsed time.
    bool timed = !recs.empty(), have_elapsed = !recs.empty(), whole_seconds = true;
    for (const auto& r : recs) {
      timed &= !std::isnan(r.time_s);
      have_elapsed &= !std::isnan(r.elapsed_per_iteration_s);
      if (!std::isnan(r.time_s) && r.time_s != std::floor(r.time_s)) whole_seconds = false;
    }
    if (!timed && !have_elapsed) return;
    const double quantum_s = timed && whole_seconds ? 1.0 : 0.0;

    std::vector<double> pace;
    std::vector<Interval> iv = LoggedIntervals(recs, timed, &pace);
    if (iv.size() < kMinIntervals) return;
    std::vector<double> lost;
    if (!SetIntervalBaselines(recs, pace, &iv, &lost)) return;
    const RobustCenter rc = MedianAndMad(lost);
    const double sigma = kMadToSigma * rc.mad;
    const StallThreshold threshold{sigma, quantum_s};
    const double wall_s = timed ? recs.back().time_s - recs[iv.front().rec - 1].time_s : [&] {
      double s = 0;
      for (const auto& x : iv) s += x.expected_s + x.lost_s;
      return s;
    }();
    if (!(wall_s > 0)) return;

    const std::vector<Save> kept = MeasureSaves(CheckpointSaves(log), iv, recs.back().iteration, threshold);
    if (!kept.empty()) {
      std::vector<const Save*> vis;
      for (const auto& s : kept)
        if (s.visible) vis.push_back(&s);
      if (static_cast<int>(vis.size()) < kMinVisibleStalls ||
          static_cast<double>(vis.size()) < kMinVisibleShare * static_cast<double>(kept.size()))
        return;
      ReportSaves(log, kept, vis, wall_s, timed, out);
      return;
    }
    CheckPeriodic(log, iv, threshold, wall_s, timed, out);
  }

  // No save lines: stalls at a fixed iteration period, reported when enough of them agree on it.
  void CheckPeriodic(const TrainingLog& log, const std::vector<Interval>& iv, const StallThreshold& threshold,
                     double wall_s, bool timed, std::vector<Finding>* out) const {
    const auto& recs = log.iterations;
    // Consecutive stalled intervals are one stall (a slow stretch), counted from its first interval.
    std::vector<Interval> stalls;
    int stalled_intervals = 0;
    for (size_t k = 0; k < iv.size(); ++k) {
      if (!(iv[k].lost_s > threshold(iv[k].expected_s, 1))) continue;
      ++stalled_intervals;
      if (k > 0 && !stalls.empty() && stalls.back().end_iteration == iv[k].start_iteration) {
        stalls.back().end_iteration = iv[k].end_iteration;
        stalls.back().end_s = iv[k].end_s;
        stalls.back().lost_s += iv[k].lost_s;
        continue;
      }
      stalls.push_back(iv[k]);
    }
    if (static_cast<int>(stalls.size()) < kMinPeriodicStalls) return;
    if (static_cast<double>(stalled_intervals) > kMaxStalledShare * static_cast<double>(iv.size())) return;
    std::vector<double> gaps;
    for (size_t k = 1; k < stalls.size(); ++k)
      gaps.push_back(static_cast<double>(stalls[k].start_iteration - stalls[k - 1].start_iteration));
    const double period = Median(gaps);
    const double log_interval = static_cast<double>(recs[stalls.front().rec].interval_iterations);
    if (period < kMinPeriodIntervals * log_interval) return;
    int agree = 0;
    for (double g : gaps)
      if (std::abs(g - period) <= std::max(log_interval, kPeriodTolerance * period)) ++agree;
    if (static_cast<double>(agree) < kMinPeriodicShare * static_cast<double>(gaps.size())) return;
    ReportPeriodic(log, stalls, static_cast<int64_t>(std::llround(period)), wall_s, timed, out);
  }

  void ReportSaves(const TrainingLog& log, const std::vector<Save>& kept, const std::vector<const Save*>& vis,
                   double wall_s, bool timed, std::vector<Finding>* out) const {
    Finding f;
    f.rule = Name();
    double lost = 0;
    int async = 0;
    for (const Save* s : vis) {
      lost += s->lost_s;
      async += s->async;
    }
    const bool mostly_async = 2 * async > static_cast<int>(vis.size());
    f.loss_fraction = std::min(1.0, lost / wall_s);
    f.severity = SeverityForLoss(f.loss_fraction);
    std::vector<double> di, dt;
    for (size_t k = 1; k < vis.size(); ++k) {
      di.push_back(static_cast<double>(vis[k]->iteration - vis[k - 1]->iteration));
      if (!std::isnan(vis[k]->time_s) && !std::isnan(vis[k - 1]->time_s))
        dt.push_back(vis[k]->time_s - vis[k - 1]->time_s);
    }
    f.where.period_iterations = static_cast<int64_t>(std::llround(Median(di)));
    if (!dt.empty()) f.where.period_s = Median(dt);
    for (const Save* s : vis) {
      f.where.iterations.push_back(s->iteration);
      if (!std::isnan(s->range_start_s) && !std::isnan(s->range_end_s))
        f.where.time_ranges_s.push_back({s->range_start_s, s->range_end_s});
      f.where.lines.push_back(fmt::format("{}:{}", log.path, s->line));
      f.evidence.push_back({fmt::format("time lost to the save at iteration {}", s->iteration), s->lost_s, "s",
                            fmt::format("{}:{}", log.path, s->line)});
      if (!std::isnan(s->timer_max_s))
        f.evidence.push_back({fmt::format("save-checkpoint timer max at iteration {}", s->iteration), s->timer_max_s,
                              "s", fmt::format("{}:{}", log.path, s->line)});
    }
    f.evidence.push_back({"wall time of the logged intervals", wall_s, "s", log.path});
    f.evidence.push_back({"saves during training", static_cast<double>(kept.size()), "", log.path});
    const double per_save = lost / static_cast<double>(vis.size());
    f.title = fmt::format(
        "{} checkpoint saves stall training: {:.1f} s lost per save every {} iterations ({:.1f}% of the time)",
        mostly_async ? "Asynchronous" : "Synchronous", per_save, f.where.period_iterations, 100 * f.loss_fraction);
    f.message = fmt::format(
        "{} of the {} saves during training are followed by {} ({:.1f} s on average, {:.1f} s in all) beyond the run's "
        "typical "
        "pace, measured from {}; that is {:.1f}% of the {:.0f} s logged. Period: {} iterations{}.",
        vis.size(), kept.size(), mostly_async ? "slower iterations" : "a stall", per_save, lost,
        timed ? "the gaps between the iteration lines' timestamps" : "the elapsed time per iteration",
        100 * f.loss_fraction, wall_s, f.where.period_iterations,
        std::isnan(f.where.period_s) ? std::string() : fmt::format(" ({:.0f} s)", f.where.period_s));
    f.fix =
        mostly_async
            ? "The asynchronous save still slows the iterations after it (the writer competes for PCIe, host memory "
              "and "
              "storage): save less often (a larger --save-interval), keep --use-persistent-ckpt-worker on, use "
              "--non-persistent-save-interval with --non-persistent-ckpt-type local for frequent saves, or give the "
              "checkpoint storage more bandwidth."
            : "Save asynchronously (Megatron-LM: --async-save --use-persistent-ckpt-worker with --ckpt-format "
              "torch_dist; "
              "torchtitan: checkpoint.async_mode = \"async\"), or save less often (a larger --save-interval).";
    out->push_back(std::move(f));
  }

  void ReportPeriodic(const TrainingLog& log, const std::vector<Interval>& stalls, int64_t period, double wall_s,
                      bool timed, std::vector<Finding>* out) const {
    Finding f;
    f.rule = Name();
    double lost = 0;
    std::vector<double> dt;
    for (size_t k = 0; k < stalls.size(); ++k) {
      const Interval& x = stalls[k];
      lost += x.lost_s;
      f.where.iterations.push_back(x.start_iteration);
      if (!std::isnan(x.start_s)) f.where.time_ranges_s.push_back({x.start_s, x.end_s});
      const int line = log.iterations[x.rec].line;
      f.where.lines.push_back(fmt::format("{}:{}", log.path, line));
      f.evidence.push_back({fmt::format("time lost between iterations {} and {}", x.start_iteration, x.end_iteration),
                            x.lost_s, "s", fmt::format("{}:{}", log.path, line)});
      if (k > 0 && !std::isnan(x.start_s)) dt.push_back(x.start_s - stalls[k - 1].start_s);
    }
    f.where.period_iterations = period;
    if (!dt.empty()) f.where.period_s = Median(dt);
    f.loss_fraction = std::min(1.0, lost / wall_s);
    f.severity = SeverityForLoss(f.loss_fraction);
    const double per = lost / static_cast<double>(stalls.size());
    f.title =
        fmt::format("Periodic stalls every {} iterations ({:.1f} s each, {:.1f}% of the time): likely checkpoint saves",
                    period, per, 100 * f.loss_fraction);
    f.message = fmt::format(
        "{} stalls at a fixed period of {} iterations, {:.1f} s each beyond the run's typical pace ({}), {:.1f}% of "
        "the {:.0f} s "
        "logged; the log has no checkpoint lines to confirm they are saves (a save interval of {} would explain them).",
        stalls.size(), period, per, timed ? "from the timestamps" : "from the elapsed time per iteration",
        100 * f.loss_fraction, wall_s, period);
    f.fix =
        "If these are checkpoint saves: save asynchronously (Megatron-LM --async-save --use-persistent-ckpt-worker; "
        "torchtitan checkpoint.async_mode = \"async\") or less often; otherwise look for a periodic job on the hosts "
        "(evaluation, logging, garbage collection: Megatron --manual-gc).";
    out->push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeCheckpointStallRule() { return std::make_unique<CheckpointStallRule>(); }

}  // namespace paratune
