// Fault cases of the series area (tools/gen_faults/cases.h): Megatron-LM training logs in the
// format megatron/training/training.py (training_log) prints with --log-throughput and
// --log-interval 10, whose throughput per logged line carries a realistic 1% AR(1) noise (rho
// 0.5, as consecutive logged intervals of a real run are correlated): a step change (-12% from
// iteration 3000), a slow drift (-6% over the run, in the 2026 format whose timestamps carry
// microseconds, strftime '%Y-%m-%d %H:%M:%S.%f') and a clean control with a warm-up,
// sub-percent wander and two isolated one-line hiccups. Rule: throughput_change_point.
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <string>

#include "cases.h"

namespace paratune::faults {
namespace {

constexpr double kStart = 1714564800.0;  // 2024-05-01 12:00:00 (UTC, printed zone-less)
constexpr double kStepS = 1.2345;        // steady time per iteration
constexpr double kTflops = 412.3;        // steady throughput per GPU at kStepS
constexpr int kLogInterval = 10;
constexpr int kTrainIters = 500000;
constexpr int kGlobalBatch = 512;

std::string Stamp(double epoch_s, bool fractional) {
  const auto whole = static_cast<std::time_t>(std::floor(epoch_s));
  std::tm tm{};
  gmtime_r(&whole, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  std::string s = buf;
  if (fractional) {
    std::snprintf(buf, sizeof buf, ".%06d", static_cast<int>((epoch_s - std::floor(epoch_s)) * 1e6));
    s += buf;
  }
  return s;
}

// A Megatron log of `iterations` iterations: slowdown(it) is the factor on the time of iteration
// `it` (1 = steady); each logged line prints the mean over its interval times (1 + AR(1) noise).
std::string MegatronLog(int iterations, const std::function<double(int)>& slowdown, uint64_t seed, bool fractional) {
  Rng rng(seed);
  std::string out;
  out +=
      "using world size: 64, data-parallel size: 8, context-parallel size: 1, tensor-model-parallel size: 8, "
      "pipeline-model-parallel size: 1\n";
  out += "> building GPT model ...\n";
  out +=
      "[after model, optimizer, and learning rate scheduler are built] datetime: " + Stamp(kStart - 40, false) + "\n";
  out += "[after dataloaders are built] datetime: " + Stamp(kStart - 5, false) + "\n";
  out += "training ...\n";
  out += "[before the start of training step] datetime: " + Stamp(kStart, false) + "\n";
  double t = kStart, e = 0.01 * rng.Normal();
  for (int it = kLogInterval; it <= iterations; it += kLogInterval) {
    double factor = 0;
    for (int j = it - kLogInterval + 1; j <= it; ++j) factor += slowdown(j);
    factor /= kLogInterval;
    e = 0.5 * e + 0.01 * std::sqrt(0.75) * rng.Normal();
    const double elapsed_s = kStepS * factor * (1 + e);
    t += kLogInterval * elapsed_s;
    const double lr = 3e-4 * std::min(1.0, it / 2000.0);
    const double loss = 2.4 + 8.1 * std::exp(-it / 800.0) + 0.02 * rng.Normal();
    char line[640];
    std::snprintf(line, sizeof line,
                  " [%s] iteration %8d/%8d | consumed samples: %12lld | elapsed time per iteration (ms): %.1f | "
                  "throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | "
                  "lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations: %3d | "
                  "number of nan iterations: %3d |\n",
                  Stamp(t, fractional).c_str(), it, kTrainIters, static_cast<long long>(it) * kGlobalBatch,
                  elapsed_s * 1e3, kTflops * kStepS / elapsed_s, lr, kGlobalBatch, loss,
                  0.9 + 0.1 * std::fabs(rng.Normal()), 0, 0);
    out += line;
  }
  return out;
}

// The warm-up of a real run: the first interval holds compilation and NCCL set-up, the next two
// are still slower.
double Warmup(int it) { return it <= 10 ? 3.0 : it <= 20 ? 1.3 : it <= 30 ? 1.05 : 1.0; }

// Time of the line logging iteration `it` in a log written with `slowdown` and `seed` (the
// expectation's time ranges are taken from the log itself).
std::string TimeOfLine(const std::string& log, int it) {
  char key[64];
  std::snprintf(key, sizeof key, "] iteration %8d/", it);
  const size_t at = log.find(key);
  const size_t open = log.rfind('[', at);
  return log.substr(open + 1, 19);  // "YYYY-MM-DD HH:MM:SS"
}

}  // namespace

void AddSeriesCases(CaseWriter& w) {
  constexpr int kIterations = 6000;
  {
    // Step: every iteration from 3001 on takes 1 / 0.88 as long: throughput -12% at iteration 3000.
    auto& c = w.Add("throughput_change_point_step", "throughput_change_point", true);
    const std::string log = MegatronLog(
        kIterations, [](int it) { return Warmup(it) * (it > 3000 ? 1 / 0.88 : 1.0); }, 501, false);
    w.Write(c, "train.log", log);
    c.expect.iterations = {3000};
    c.expect.iteration_tolerance = kLogInterval;
    c.expect.time_ranges = {{TimeOfLine(log, 3000), TimeOfLine(log, kIterations)}};
    c.expect.min_loss_fraction = 0.05;  // 12% x ~53% of the time after it
  }
  {
    // Drift: throughput declines linearly by 6% over the run (2026 format, fractional seconds).
    auto& c = w.Add("throughput_change_point_drift", "throughput_change_point", true);
    const std::string log = MegatronLog(
        kIterations, [](int it) { return Warmup(it) / (1 - 0.06 * it / static_cast<double>(kIterations)); }, 502, true);
    w.Write(c, "train.log", log);
    c.expect.time_ranges = {{TimeOfLine(log, 1000), TimeOfLine(log, 5000)}};
    c.expect.min_loss_fraction = 0.02;  // 6% / 2 on average
  }
  {
    // Control: warm-up, a 0.5% wander over ~25 minutes, two isolated one-line hiccups (a 60% and
    // a 35% slower interval, as a host-side pause makes).
    auto& c = w.Add("throughput_change_point_clean", "throughput_change_point", false);
    w.Write(c, "train.log",
            MegatronLog(
                kIterations,
                [](int it) {
                  const double hiccup = (it > 2230 && it <= 2240) ? 1.6 : (it > 4510 && it <= 4520) ? 1.35 : 1.0;
                  return Warmup(it) * (1 + 0.005 * std::sin(it / 400.0)) * hiccup;
                },
                503, false));
  }
}

}  // namespace paratune::faults
