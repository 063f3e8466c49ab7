// The step composer: one simulation per layout gives the step; its breakdown adds up; long steps
// are extended from the periodic steady state to the same figures a full simulation gives; and
// the work stays bounded for absurd batches.
#include "step/compose.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <random>

#include "hardware/hardware_catalog.h"
#include "layout/constraints.h"
#include "model/catalog.h"
#include "util/test_util.h"

namespace paratune {
namespace {

ClusterSpec Cluster(const std::string& gpu, int gpus) { return HardwareCatalog::BuiltIn().Cluster(gpu, gpus); }

void ExpectRel(double got, double want, double rel, const std::string& what) {
  EXPECT_NEAR(got, want, rel * std::abs(want)) << what;
}

// Extension past kFullSimulationMicroBatches matches simulating every micro-batch, for every
// schedule, on uneven stages (embedding and logits), with transfers, DP and ZeRO gathers.
TEST(Compose, ExtendedSteadyStateMatchesFullSimulation) {
  const ModelSpec m = LoadModel("llama-3.1-8b");
  struct Case {
    int tp, pp, vp, zero, gpus;
    int64_t global_batch;
    ScheduleKind schedule;
  };
  const Case cases[] = {
      {1, 4, 1, 1, 8, 1200, ScheduleKind::k1F1B},         {2, 4, 2, 1, 16, 1024, ScheduleKind::kInterleaved},
      {1, 8, 4, 3, 16, 2048, ScheduleKind::kInterleaved}, {1, 4, 1, 0, 4, 777, ScheduleKind::kZbH1},
      {1, 2, 1, 2, 8, 1300, ScheduleKind::kGpipe},        {8, 1, 1, 3, 8, 600, ScheduleKind::k1F1B}};
  for (const Case& c : cases) {
    Layout l;
    l.tp = c.tp;
    l.pp = c.pp;
    l.vp = c.vp;
    l.zero = c.zero;
    l.schedule = c.schedule;
    const Training t{2048, c.global_batch, Precision::kBf16};
    const std::string what =
        fmt::format("{} pp {} vp {} zero {} m {}", ScheduleName(c.schedule), c.pp, c.vp, c.zero, c.global_batch);
    const StepResult ext = ComposeStep(m, Cluster("H100", c.gpus), t, l);
    ComposeOptions full;
    full.full_simulation_micro_batches = int64_t{1} << 40;
    const StepResult ref = ComposeStep(m, Cluster("H100", c.gpus), t, l, {}, full);
    ASSERT_GT(ext.estimate.micro_batches, kFullSimulationMicroBatches) << what;
    EXPECT_TRUE(ext.extrapolated) << what;
    EXPECT_FALSE(ref.extrapolated) << what;
    EXPECT_LT(ext.simulated_micro_batches, ext.estimate.micro_batches) << what;
    ExpectRel(ext.estimate.step_time_s, ref.estimate.step_time_s, 1e-12, what);
    ExpectRel(ext.simulation.pipeline_time_s, ref.simulation.pipeline_time_s, 1e-12, what);
    for (size_t k = 0; k < ref.simulation.stages.size(); ++k) {
      const StageFigures &a = ext.simulation.stages[k], &b = ref.simulation.stages[k];
      ExpectRel(a.time.compute_s, b.time.compute_s, 1e-12, what);
      EXPECT_NEAR(a.time.idle_s, b.time.idle_s, 1e-12 * ref.estimate.step_time_s) << what;
      EXPECT_NEAR(a.time.non_compute_s, b.time.non_compute_s, 1e-12 * ref.estimate.step_time_s) << what;
      EXPECT_EQ(a.peak_inflight, b.peak_inflight) << what;
      EXPECT_DOUBLE_EQ(ext.estimate.stages[k].memory.total(), ref.estimate.stages[k].memory.total()) << what;
    }
    EXPECT_NEAR(ext.estimate.time.bubble_s, ref.estimate.time.bubble_s, 1e-12 * ref.estimate.step_time_s) << what;
    EXPECT_NEAR(ext.estimate.time.pp_s, ref.estimate.time.pp_s, 1e-12 * ref.estimate.step_time_s) << what;
    EXPECT_NEAR(ext.estimate.time.dp_s, ref.estimate.time.dp_s, 1e-12 * ref.estimate.step_time_s) << what;
  }
}

// A global batch of 2,000,000 sequences: the composer simulates a bounded number of
// micro-batches and extends the rest; the timeline of every micro-batch is refused, on one line.
TEST(Compose, HugeBatchesStayBounded) {
  const ModelSpec m = LoadModel("llama-3.1-70b");
  Layout l;
  l.tp = 8;
  l.pp = 4;
  l.vp = 5;
  const Training t{8192, 2'000'000, Precision::kBf16};
  const StepResult r = ComposeStep(m, Cluster("B300", 64), t, l);
  EXPECT_EQ(r.estimate.micro_batches, 1'000'000);
  EXPECT_TRUE(r.extrapolated);
  EXPECT_LE(r.simulated_micro_batches, 2 * kFullSimulationMicroBatches);
  // The step is a million micro-batches through the critical stage plus a bounded rest.
  const StageEstimate& crit = r.estimate.stages[r.estimate.critical_stage];
  const double per_mb = crit.forward_s + crit.backward_s;
  EXPECT_GT(r.estimate.step_time_s, 1e6 * per_mb);
  EXPECT_LT(r.estimate.step_time_s, 1e6 * per_mb + 10);
  ComposeOptions with_timeline;
  with_timeline.record_timeline = true;
  EXPECT_CONTAINS(InputErrorOf([&] { ComposeStep(m, Cluster("B300", 64), t, l, {}, with_timeline); }),
                  "a timeline of this step would run");
}

// The step-time terms add up to the step, and match the simulated critical stage and the
// schedule: the breakdown's compute is m times the critical stage's, the bubble is what the
// schedule alone adds, the end rank's optimizer is in it.
TEST(Compose, BreakdownAddsUpToTheStep) {
  std::mt19937 rng(20261201);
  const ModelSpec m = LoadModel("llama-3.1-8b");
  int checked = 0;
  for (int i = 0; i < 60; ++i) {
    auto pick = [&](std::initializer_list<int> v) {
      return *(v.begin() + std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng));
    };
    Layout l;
    l.tp = pick({1, 2, 4, 8});
    l.pp = pick({1, 2, 4, 8});
    l.vp = l.pp > 1 ? pick({1, 2, 4}) : 1;
    l.zero = pick({0, 1, 2, 3});
    l.recompute = static_cast<Recompute>(pick({0, 1, 2}));
    l.overlap_pp_comm = pick({0, 1});
    l.overlap_grad_reduce = pick({0, 1});
    l.overlap_param_gather = pick({0, 1});
    const Training t{4096, pick({16, 64, 256}), Precision::kBf16};
    const ClusterSpec c = Cluster("H100", 64);
    Layout checked_layout = l;
    if (!CheckLayout(m, c, t, checked_layout).empty()) continue;
    const StepResult r = ComposeStep(m, c, t, l);
    const Estimate& e = r.estimate;
    ASSERT_EQ(e.step_time_s, r.simulation.step_time_s);
    EXPECT_NEAR(e.time.total(), e.step_time_s, 1e-12 * e.step_time_s);
    for (const StepTerm& term : kStepTerms) EXPECT_GE(e.time.*term.value, 0) << term.key;
    EXPECT_DOUBLE_EQ(e.time.compute_s, static_cast<double>(e.micro_batches) * e.stages[e.critical_stage].compute_s);
    EXPECT_DOUBLE_EQ(e.time.optimizer_s, e.stages[r.simulation.critical_path.end_rank].optimizer_s);
    // The breakdown names the stage its optimizer time is from (issue 32: it named the critical one).
    EXPECT_EQ(e.end_stage, r.simulation.critical_path.end_rank);
    EXPECT_DOUBLE_EQ(e.time.optimizer_s, e.stages[e.end_stage].optimizer_s);
    if (l.pp == 1) {
      EXPECT_NEAR(e.time.bubble_s, 0, 1e-12 * e.step_time_s);
    }
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

}  // namespace
}  // namespace paratune
