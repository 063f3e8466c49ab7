// Rule data_starvation (issue 11, rule 1): the input pipeline does not keep the GPUs fed. Two
// independent signs, each its own finding:
//   telemetry  a periodic saw-tooth in the GPUs' utilisation (analysis/periodicity.h), with its
//              period and duty cycle, on most GPUs of a capture (every rank has its own loader);
//   traces     the data-loader share of the step (analysis/iterations.h) above TensorBoard's
//              profiler plugin's input-bound hint, with the GPU idle at step start waiting for
//              the host.
// Thresholds and sources: docs/diagnose-telemetry.md.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "analysis/periodicity.h"
#include "diagnose/rules.h"
#include "util/stats.h"

namespace paratune {
namespace {

// TensorBoard's PyTorch profiler plugin flags a run as input-bound when the DataLoader takes
// more than 5% of the step (pytorch/kineto, tb_plugin/torch_tb_profiler/profiler/data.py,
// RunProfileData.analyze: `if dataloader_ratio > 0.05`).
constexpr double kDataLoaderShare = 0.05;
// The checklist: a data pipeline three times faster than the GPUs consume. The number
// of loader workers that reaches it from a synchronous (num_workers=0) measurement is
// ceil(kPipelineHeadroom * loader time / (step time - loader time)).
constexpr double kPipelineHeadroom = 3.0;

// Telemetry: the ACF peak must reach 0.5 (the periodicity finder's default) and the
// utilisation must swing by at least 30 points between its low and high levels: a steady
// training job's 1 s utilisation wanders by a few points, a loader stall that empties the GPU
// for part of each period moves it by tens.
constexpr double kMinAutocorrelation = 0.5;
constexpr double kMinUtilSwing = 0.3;
// Every rank runs its own loader, so starvation shows on all of a node's GPUs; a pattern on
// fewer than half of them is some other per-GPU effect (a straggler, a throttled GPU).
constexpr double kMinStarvedGpuShare = 0.5;
// The shortest period the finder searches: two polls (one busy, one starved).
constexpr size_t kMinPeriodSamples = 2;

const char* kFix =
    "Feed the GPUs faster than they consume: DataLoader(num_workers=N) with N worker processes (from 4 per GPU up, "
    "within the CPU cores per GPU), prefetch_factor=2..4 batches per worker, pin_memory=True with "
    ".to(device, non_blocking=True), persistent_workers=True so workers survive epochs; move decoding and "
    "augmentation out of the training loop (pre-processed shards, NVIDIA DALI, GPU-side augmentation).";

// The utilisation series of one GPU: nvidia-smi utilization.gpu, else DCGM GRACT, else SMACT.
std::vector<double> UtilSeries(const std::vector<const TelemetrySample*>& s) {
  const auto pick = [&](auto field) {
    std::vector<double> x;
    for (const TelemetrySample* p : s)
      if (!std::isnan(field(*p))) x.push_back(field(*p));
    return x;
  };
  auto x = pick([](const TelemetrySample& t) { return t.util_fraction; });
  if (x.size() * 2 < s.size()) x = pick([](const TelemetrySample& t) { return t.gr_active; });
  if (x.size() * 2 < s.size()) x = pick([](const TelemetrySample& t) { return t.sm_active; });
  return x;
}

// A GPU whose utilisation is a saw-tooth: its periodicity, mean utilisation and time span.
struct PeriodicGpu {
  int gpu;
  Periodicity p;
  double mean;
  double t0, t1;
};

// The GPUs of a capture whose utilisation series has a periodic saw-tooth.
std::vector<PeriodicGpu> PeriodicGpus(const std::map<int, std::vector<const TelemetrySample*>>& by_gpu) {
  std::vector<PeriodicGpu> hits;
  for (const auto& [gpu, s] : by_gpu) {
    const std::vector<double> x = UtilSeries(s);
    const Periodicity p = FindPeriodicity(x, kMinPeriodSamples, x.size() / 3, kMinAutocorrelation, kMinUtilSwing);
    if (!p.found) continue;
    double mean = 0;
    for (double v : x) mean += v;
    mean /= static_cast<double>(x.size());
    hits.push_back({gpu, p, mean, s.front()->time_s, s.back()->time_s});
  }
  return hits;
}

// A rank's steps summed: data-loader and CPU step time, and the GPU idle at step start over the
// steps whose GPU times are known (gaps of them, steps_s long).
struct StepTotals {
  double start_idle_s = 0, steps_s = 0, loader_s = 0, step_s = 0;
  int gaps = 0;
};

// Sums a rank's steps; GPU idle at step start: from the end of the previous step's GPU work to
// the first GPU event of this step, when the GPU times are known (a trace, not an analysis JSON).
StepTotals SumSteps(const std::vector<IterationStats>& iterations) {
  StepTotals t;
  for (size_t i = 0; i < iterations.size(); ++i) {
    const IterationStats& it = iterations[i];
    t.loader_s += it.dataloader_s;
    t.step_s += it.cpu_step_s;
    if (i == 0) continue;
    const IterationStats& prev = iterations[i - 1];
    if (it.gpu_start_ns < 0 || prev.gpu_start_ns < 0) continue;
    const double prev_end_s = static_cast<double>(prev.gpu_start_ns) * 1e-9 + prev.gpu.window_s;
    t.start_idle_s += std::max(0.0, static_cast<double>(it.gpu_start_ns) * 1e-9 - prev_end_s);
    t.steps_s += it.cpu_step_s;
    ++t.gaps;
  }
  return t;
}

// The idle time waiting for the host (category host_wait) and all idle time, in seconds.
std::pair<double, double> HostWaitIdle(const std::vector<IdleRow>& idle) {
  double host_wait_s = 0, idle_total_s = 0;
  for (const IdleRow& row : idle) {
    idle_total_s += row.idle_s;
    if (row.category == "host_wait") host_wait_s += row.idle_s;
  }
  return {host_wait_s, idle_total_s};
}

class DataStarvationRule : public Rule {
 public:
  const char* Name() const override { return "data_starvation"; }
  const char* Summary() const override {
    return "input pipeline starving the GPUs: periodic saw-tooth utilisation, data-loader share of the step above 5%";
  }

  void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const override {
    for (const GpuTelemetry& t : in.telemetry) CheckTelemetry(t, out);
    if (in.analysis) CheckTraces(*in.analysis, out);
  }

 private:
  void CheckTelemetry(const GpuTelemetry& t, std::vector<Finding>* out) const {
    std::map<int, std::vector<const TelemetrySample*>> by_gpu;
    for (const auto& s : t.samples) by_gpu[s.gpu].push_back(&s);
    if (by_gpu.empty()) return;
    const std::vector<PeriodicGpu> hits = PeriodicGpus(by_gpu);
    if (hits.empty() || static_cast<double>(hits.size()) < kMinStarvedGpuShare * static_cast<double>(by_gpu.size()))
      return;
    std::vector<double> periods, duties, losses, acfs, lows, highs;
    Finding f;
    f.rule = Name();
    double t0 = hits[0].t0, t1 = hits[0].t1;
    for (const PeriodicGpu& h : hits) {
      periods.push_back(static_cast<double>(h.p.period_samples));
      duties.push_back(h.p.duty_cycle);
      // The share of the busy level the GPU does not reach on average: the time it waits.
      losses.push_back(h.p.high_level > 0 ? std::clamp(1 - h.mean / h.p.high_level, 0.0, 1.0) : 0.0);
      f.where.gpus.push_back(h.gpu);
      t0 = std::min(t0, h.t0);
      t1 = std::max(t1, h.t1);
      const std::string src = fmt::format("{} GPU {}", t.path, h.gpu);
      f.evidence.push_back(
          {fmt::format("GPU {} utilisation period", h.gpu), h.p.period_samples * t.interval_s, "s", src});
      f.evidence.push_back({fmt::format("GPU {} duty cycle", h.gpu), h.p.duty_cycle, "fraction", src});
      acfs.push_back(h.p.autocorrelation);
      lows.push_back(h.p.low_level);
      highs.push_back(h.p.high_level);
    }
    const double period_samples = Median(periods);
    const double duty = Median(duties);
    const double loss = Median(losses);
    const double acf = Median(acfs), low = Median(lows), high = Median(highs);
    f.loss_fraction = loss;
    f.severity = SeverityForLoss(loss);
    f.where.time_ranges_s.emplace_back(t0, t1);
    f.where.period_s = period_samples * t.interval_s;
    f.where.lines.push_back(fmt::format("{}:{}", t.path, t.samples.front().line));
    f.title = fmt::format("Saw-tooth GPU utilisation every {:.3g} s on {} of {} GPUs: the input pipeline starves them",
                          f.where.period_s, hits.size(), by_gpu.size());
    f.message = fmt::format(
        "Utilisation repeats every {:.3g} polls ({:.3g} s at {:.3g} s per poll; autocorrelation peak {:.2f}), busy "
        "{:.0f}% of each "
        "period (levels {:.0f}% and {:.0f}%): the GPUs wait for each batch, then run. On average they reach {:.0f}% of "
        "their busy "
        "level, an estimated {:.1f}% of throughput lost. If the period matches the checkpoint interval, see "
        "checkpoint_stall.",
        period_samples, f.where.period_s, t.interval_s, acf, 100 * duty, 100 * low, 100 * high, 100 * (1 - loss),
        100 * loss);
    f.evidence.push_back({"median period", f.where.period_s, "s", t.path});
    f.evidence.push_back({"median duty cycle", duty, "fraction", t.path});
    f.evidence.push_back({"median autocorrelation at the period", acf, "", t.path});
    f.evidence.push_back({"median utilisation low level (10th percentile)", low, "fraction", t.path});
    f.evidence.push_back({"median utilisation high level (90th percentile)", high, "fraction", t.path});
    f.evidence.push_back({"estimated throughput loss", loss, "fraction", t.path});
    f.fix = kFix;
    out->push_back(std::move(f));
  }

  void CheckTraces(const TraceAnalysis& a, std::vector<Finding>* out) const {
    for (const RankAnalysis& r : a.ranks) {
      if (r.iterations.empty() || r.dataloader_share <= kDataLoaderShare) continue;
      const double idle_share = r.temporal.window_s > 0 ? r.temporal.idle_s / r.temporal.window_s : 0;
      // GPU idle at step start: from the end of the previous step's GPU work to the first GPU
      // event of this step, when the GPU times are known (a trace, not an analysis JSON).
      const auto [start_idle_s, steps_s, loader_s, step_s, gaps] = SumSteps(r.iterations);
      const double start_idle_share = steps_s > 0 ? start_idle_s / steps_s : std::numeric_limits<double>::quiet_NaN();
      const auto [host_wait_s, idle_total_s] = HostWaitIdle(r.idle);
      // Hiding the loader can give back at most the time the GPU sat idle.
      const double loss = std::min(r.dataloader_share, idle_share);
      const double loader_per_step = loader_s / static_cast<double>(r.iterations.size());
      const double compute_per_step = step_s / static_cast<double>(r.iterations.size()) - loader_per_step;
      const int workers = compute_per_step > 0
                              ? static_cast<int>(std::ceil(kPipelineHeadroom * loader_per_step / compute_per_step))
                              : 0;

      Finding f;
      f.rule = Name();
      f.loss_fraction = loss;
      f.severity = SeverityForLoss(loss);
      f.where.gpus.push_back(r.rank);
      for (const IterationStats& it : r.iterations) f.where.iterations.push_back(it.step);
      f.title = fmt::format(
          "Data loading takes {:.1f}% of the step on rank {} (above the 5% input-bound mark); the GPU is idle {:.1f}% "
          "of the time",
          100 * r.dataloader_share, r.rank, 100 * idle_share);
      f.message = fmt::format(
          "Over ProfilerStep#{}..#{} the data loader ran {:.1f} ms of each {:.1f} ms step ({:.1f}%) on the training "
          "process; the GPU "
          "was idle {:.1f}% of its span",
          r.iterations.front().step, r.iterations.back().step, 1e3 * loader_per_step,
          1e3 * step_s / r.iterations.size(), 100 * r.dataloader_share, 100 * idle_share);
      if (gaps > 0)
        f.message += fmt::format(", {:.1f}% of the step before each step's first kernel (waiting for the batch)",
                                 100 * start_idle_share);
      if (idle_total_s > 0)
        f.message += fmt::format(", host_wait {:.1f} ms of {:.1f} ms idle", 1e3 * host_wait_s, 1e3 * idle_total_s);
      f.message += fmt::format(
          ". Hiding the loader gives back at most the idle time: an estimated {:.1f}% of throughput.", 100 * loss);
      if (workers > 0)
        f.message += fmt::format(
            " A pipeline 3x faster than the GPU consumes (the tuning checklist) needs at least {} loader worker{} "
            "at this per-batch cost.",
            workers, workers == 1 ? "" : "s");
      const std::string src = r.path;
      f.evidence.push_back({"data-loader share of the step", r.dataloader_share, "fraction", src});
      f.evidence.push_back({"data loader per step", loader_per_step, "s", src});
      f.evidence.push_back({"step time (CPU)", step_s / r.iterations.size(), "s", src});
      f.evidence.push_back({"GPU idle share", idle_share, "fraction", src});
      if (gaps > 0) f.evidence.push_back({"GPU idle at step start", start_idle_share, "fraction", src});
      if (idle_total_s > 0) f.evidence.push_back({"host_wait idle", host_wait_s, "s", src});
      f.evidence.push_back({"estimated throughput loss", loss, "fraction", src});
      f.fix = kFix;
      if (workers > 0)
        f.fix += fmt::format(" Here: num_workers >= {} keeps the pipeline 3x ahead of the GPU.", workers);
      out->push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> MakeDataStarvationRule() { return std::make_unique<DataStarvationRule>(); }

}  // namespace paratune
