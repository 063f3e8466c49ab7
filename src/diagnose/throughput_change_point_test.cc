#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "diagnose/rules.h"
#include "util/test_util.h"

namespace paratune {
namespace {

using testing_util::Normal;

constexpr double kStart = 1714564800.0;  // 2024-05-01 12:00:00
constexpr double kTflops = 400.0;        // the steady throughput per GPU
constexpr double kStepS = 1.2;           // steady time per iteration

// A Megatron log of `lines` iteration lines every 10 iterations from `first_iteration`; the
// throughput of line k is kTflops * factor(k) * (1 + 1% AR(1) noise, rho 0.5) and the time per
// iteration follows it (elapsed = kStepS / factor).
template <class Factor>
TrainingLog MegatronLog(int lines, Factor factor, uint64_t seed, int64_t first_iteration = 10) {
  TrainingLog log;
  log.path = "train.log";
  Normal g(seed);
  double e = 0.01 * g(), t = kStart;
  for (int k = 0; k < lines; ++k) {
    if (k > 0) e = 0.5 * e + 0.01 * std::sqrt(0.75) * g();
    const double f = factor(k) * (1 + e);
    IterationRecord r;
    r.line = 100 + 2 * k;
    r.iteration = first_iteration + 10 * k;
    r.interval_iterations = k == 0 ? 0 : 10;
    r.elapsed_per_iteration_s = kStepS / f;
    t += 10 * r.elapsed_per_iteration_s;
    r.time_s = t;
    r.tflops_per_gpu = kTflops * f;
    log.iterations.push_back(r);
  }
  return log;
}

double Warmup(int k) { return k == 0 ? 0.3 : k == 1 ? 0.7 : k == 2 ? 0.93 : 1.0; }

std::vector<Finding> Check(std::vector<TrainingLog> logs) {
  DiagnoseInputs in;
  in.logs = std::move(logs);
  std::vector<Finding> out;
  MakeThroughputChangePointRule()->Check(in, &out);
  return out;
}

TEST(ThroughputChangePoint, StepDownFoundWithItsIterationTimeAndLoss) {
  // -12% from iteration 3000 of 6000 (line index 299 is iteration 3000), after a warm-up.
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    const TrainingLog log = MegatronLog(
        600, [](int k) { return Warmup(k) * (k >= 300 ? 0.88 : 1.0); }, seed);
    const auto f = Check({log});
    ASSERT_EQ(f.size(), 1u) << "seed " << seed << ": " << (f.empty() ? "" : f[0].title);
    EXPECT_EQ(f[0].rule, "throughput_change_point");
    ASSERT_EQ(f[0].where.iterations.size(), 1u);
    EXPECT_NEAR(static_cast<double>(f[0].where.iterations[0]), 3001, 10);  // the first interval all at the new level
    EXPECT_NEAR(f[0].evidence[0].value, -0.12, 0.01);
    EXPECT_NEAR(f[0].evidence[1].value, 400e12, 2e12);  // FLOP/s
    // Loss: 12% x the share of the logged time after the change. The warm-up (3 lines) is out;
    // after iteration 3000 each iteration takes 1/0.88 as long: share = 300/0.88 / (297 + 300/0.88).
    const double share = (300 / 0.88) / (297 + 300 / 0.88);
    EXPECT_NEAR(f[0].loss_fraction, 0.12 * share, 0.01);
    EXPECT_EQ(f[0].severity, Severity::kWarning);  // 0.064: between 0.02 and 0.10
    ASSERT_EQ(f[0].where.time_ranges_s.size(), 1u);
    EXPECT_NEAR(f[0].where.time_ranges_s[0].first, log.iterations[299].time_s, 15);
    EXPECT_DOUBLE_EQ(f[0].where.time_ranges_s[0].second, log.iterations.back().time_s);
    EXPECT_EQ(f[0].where.lines.size(), 1u);
  }
}

TEST(ThroughputChangePoint, AsynchronousSaveSlowdownsAreLeftToCheckpointStall) {
  // An async save every 50 lines makes the interval holding it and the 3 after it take 70%
  // longer, as the fault generator's async case does (checkpoint_window.h): without leaving
  // those lines out, each save shows as a drop and a rise (22 findings on seed 1).
  for (uint64_t seed : {1, 2, 3}) {
    TrainingLog log = MegatronLog(
        600,
        [](int k) {
          const int since = k % 50;
          return Warmup(k) * (k >= 50 && since <= 3 ? 1 / 1.7 : 1.0);
        },
        seed);
    for (int k = 50; k < 600; k += 50)
      log.checkpoints.push_back({log.iterations[k].line - 1, CheckpointEventKind::kAsyncScheduled,
                                 log.iterations[k].iteration - 10, log.iterations[k - 1].time_s});
    const auto f = Check({log});
    EXPECT_TRUE(f.empty()) << "seed " << seed << ": " << f.size()
                           << " findings, first: " << (f.empty() ? "" : f[0].title);
  }
}

TEST(ThroughputChangePoint, DipAndRecoveryLosesOnlyTheSlowStretch) {
  // -20% for lines 200..299 of 500, then back: the drop is critical or warning with the loss of
  // 100 slow lines only; the recovery is info.
  const TrainingLog log = MegatronLog(
      500, [](int k) { return Warmup(k) * (k >= 200 && k < 300 ? 0.8 : 1.0); }, 7);
  const auto f = Check({log});
  ASSERT_EQ(f.size(), 2u);
  EXPECT_NEAR(f[0].evidence[0].value, -0.2, 0.01);
  const double share = (100 / 0.8) / (397 + 100 / 0.8);  // 100 slow lines of 497 after warm-up
  EXPECT_NEAR(f[0].loss_fraction, 0.2 * share, 0.01);
  EXPECT_NEAR(f[1].evidence[0].value, 0.25, 0.015);
  EXPECT_EQ(f[1].severity, Severity::kInfo);
  EXPECT_EQ(f[1].loss_fraction, 0);
}

TEST(ThroughputChangePoint, SlowDriftIsReportedAsDriftNotSteps) {
  // -6% linear over the run: one drift finding, losing ~3% on average.
  for (uint64_t seed : {11, 12, 13}) {
    const TrainingLog log = MegatronLog(
        600, [](int k) { return Warmup(k) * (1 - 0.06 * k / 599.0); }, seed);
    const auto f = Check({log});
    ASSERT_EQ(f.size(), 1u) << "seed " << seed << ": " << (f.empty() ? "" : f[0].title);
    EXPECT_NE(f[0].title.find("drift"), std::string::npos);
    EXPECT_NEAR(f[0].evidence[0].value, -0.06, 0.015);
    EXPECT_NEAR(f[0].loss_fraction, 0.03, 0.008);
    EXPECT_EQ(f[0].severity, Severity::kWarning);
    ASSERT_EQ(f[0].where.iterations.size(), 2u);
    EXPECT_EQ(f[0].where.iterations[0], 40);  // after the 3 warm-up lines
    EXPECT_EQ(f[0].where.iterations[1], 6000);
  }
}

TEST(ThroughputChangePoint, CleanControlSaysNothing) {
  // Warm-up, a 0.5% slow wander, two isolated one-line hiccups (-40% and -25%), a single-line dip
  // right after each checkpoint save line, and a restart from iteration 2000 with its own warm-up.
  for (uint64_t seed = 20; seed < 40; ++seed) {
    TrainingLog log = MegatronLog(
        400,
        [](int k) {
          return Warmup(k) * (1 + 0.005 * std::sin(k / 40.0)) * (k == 150 ? 0.6 : k == 260 ? 0.75 : 1.0);
        },
        seed);
    for (int k = 50; k < 400; k += 100) {
      log.checkpoints.push_back({log.iterations[k].line + 1, CheckpointEventKind::kAsyncScheduled,
                                 log.iterations[k].iteration, log.iterations[k].time_s});
      log.iterations[k + 1].tflops_per_gpu *= 0.7;  // the interval after the save is slower
    }
    const TrainingLog resumed = MegatronLog(200, Warmup, seed + 100, 2000);
    for (auto r : resumed.iterations) {
      r.line += 1000;
      log.iterations.push_back(r);
    }
    const auto f = Check({log});
    EXPECT_TRUE(f.empty()) << "seed " << seed << ": " << f[0].title;
  }
}

TEST(ThroughputChangePoint, StationaryAr1NoiseSaysNothing) {
  int any = 0;
  for (uint64_t seed = 100; seed < 300; ++seed) any += !Check({MegatronLog(500, Warmup, seed)}).empty();
  EXPECT_LE(any, 2);  // of 200 logs
}

TEST(ThroughputChangePoint, TokensCsvWithoutIterations) {
  // A tokens/s CSV (no iteration, no timestamps parsed): the step is located by line.
  TrainingLog log;
  log.path = "tps.csv";
  log.format = TrainingLogFormat::kThroughputCsv;
  Normal g(5);
  for (int k = 0; k < 300; ++k) {
    IterationRecord r;
    r.line = k + 2;
    r.tokens_per_s_per_gpu = 3000 * (k >= 180 ? 0.9 : 1.0) * (1 + 0.01 * g());
    log.iterations.push_back(r);
  }
  const auto f = Check({log});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f[0].where.iterations.empty());
  ASSERT_EQ(f[0].where.lines.size(), 1u);
  EXPECT_NEAR(std::stoi(f[0].where.lines[0].substr(8)), 182, 3);
  EXPECT_EQ(f[0].evidence[1].unit, "tokens/s");
  EXPECT_NEAR(f[0].loss_fraction, 0.1 * 120 / 298.0, 0.01);  // by line: 120 of 298 after warm-up
}

TEST(ThroughputChangePoint, NothingWithoutALogOrWithTooFewLines) {
  EXPECT_TRUE(Check({}).empty());
  EXPECT_TRUE(Check({MegatronLog(
                        15, [](int k) { return k < 8 ? 1.0 : 0.5; }, 1)})
                  .empty());
}

}  // namespace
}  // namespace paratune
