#include "plan/sweep.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hardware/hardware_catalog.h"
#include "model/catalog.h"
#include "plan/planner.h"

namespace paratune {
namespace {

PlanRequest SweepRequest() {
  PlanRequest r;
  r.model = LoadModel("llama-3.1-8b");
  r.cluster = HardwareCatalog::BuiltIn().Cluster("H100", 8);
  r.training.seq = 4096;
  r.training.global_batch = 64;
  return r;
}

// The unpinned search takes the best over every tp, so the sweep's best point is the plan's
// winner, and each point keeps the value it pins.
TEST(Sweep, TheBestPointOfATpSweepIsThePlansWinner) {
  const PlanRequest r = SweepRequest();
  const SweepResult s = Sweep(r, SweepKnob::kTp);
  ASSERT_EQ(s.points.size(), 4u);  // 1, 2, 4, 8
  double best = 0;
  for (size_t i = 0; i < s.points.size(); ++i) {
    EXPECT_EQ(s.points[i].value, std::to_string(1 << i));
    if (!s.points[i].fits) continue;
    EXPECT_EQ(s.points[i].best.layout.tp, 1 << i);
    best = std::max(best, s.points[i].best.tokens_per_s_per_gpu);
  }
  const PlanResult plan = Plan(r);
  EXPECT_DOUBLE_EQ(best, plan.ranked.front().tokens_per_s_per_gpu);
}

TEST(Sweep, RecomputeAndPrecisionPinTheirValue) {
  const PlanRequest r = SweepRequest();
  const SweepResult rc = Sweep(r, SweepKnob::kRecompute);
  ASSERT_EQ(rc.points.size(), 3u);
  EXPECT_EQ(rc.points[2].value, "full");
  ASSERT_TRUE(rc.points[2].fits);
  EXPECT_EQ(rc.points[2].best.layout.recompute, Recompute::kFull);
  const SweepResult pr = Sweep(r, SweepKnob::kPrecision);
  ASSERT_EQ(pr.points.size(), 2u);  // H100: BF16 and FP8 tensor cores, no FP4
  EXPECT_EQ(pr.points[1].value, "fp8");
  ASSERT_TRUE(pr.points[1].fits);
  EXPECT_EQ(pr.points[1].best.training.precision, Precision::kFp8);
}

}  // namespace
}  // namespace paratune
