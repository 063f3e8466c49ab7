#include <gtest/gtest.h>

#include "diagnose/plan_test_util.h"
#include "diagnose/rules.h"
#include "diagnose/what_if.h"
#include "util/test_util.h"

namespace paratune {
namespace {

using testing_plan::L;
using testing_plan::Plan;

std::vector<Finding> DiagnoseRecompute(const PlannedRun& p) {
  return testing_plan::RunRule(*MakeRecomputeUnneededRule(), p);
}

TEST(RecomputeUnneeded, FullRecomputationWhereNoneFits) {
  // Llama-3.1-8B on 8 H100 with tp 2: full recomputation repeats every forward (about 9.6 s of a
  // 42.9 s step); without it the peak is 62 GB, well inside 95% of 80 GB.
  const PlannedRun p = Plan("llama-3.1-8b", "H100", 8, L(2, 1, Recompute::kFull));
  const std::vector<Finding> f = DiagnoseRecompute(p);
  ASSERT_EQ(f.size(), 1u);
  const Estimate none = EstimateStep(p.model, p.cluster, p.training, L(2, 1));
  ASSERT_TRUE(FitsWithHeadroom(none));
  EXPECT_EQ(f[0].rule, "recompute_unneeded");
  EXPECT_NEAR(f[0].loss_fraction, 1 - p.estimate.tokens_per_s / none.tokens_per_s, 1e-12);
  EXPECT_GT(p.estimate.time.recompute_s, 0.2 * p.estimate.step_time_s);
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_CONTAINS(f[0].fix, "--recompute none");
  EXPECT_CONTAINS(f[0].title, "recompute full is not needed: recompute none fits");
}

TEST(RecomputeUnneeded, SelectiveWhereNoneFits) {
  const PlannedRun p = Plan("llama-3.1-8b", "H100", 8, L(2, 1, Recompute::kSelective));
  const std::vector<Finding> f = DiagnoseRecompute(p);
  ASSERT_EQ(f.size(), 1u);
  const Estimate none = EstimateStep(p.model, p.cluster, p.training, L(2, 1));
  EXPECT_NEAR(f[0].loss_fraction, 1 - p.estimate.tokens_per_s / none.tokens_per_s, 1e-12);
  EXPECT_CONTAINS(f[0].fix, "--recompute none");
}

TEST(RecomputeUnneeded, ControlFullRecomputationNeededAtTp1) {
  // tp 1: without recomputation the peak is 109 GB (selective saves nothing with FlashAttention),
  // more than the 80 GB; full recomputation is what fits.
  const PlannedRun p = Plan("llama-3.1-8b", "H100", 8, L(1, 1, Recompute::kFull));
  ASSERT_FALSE(FitsWithHeadroom(EstimateStep(p.model, p.cluster, p.training, L(1, 1))));
  EXPECT_TRUE(DiagnoseRecompute(p).empty());
  EXPECT_TRUE(DiagnoseRecompute(Plan("llama-3.1-8b", "H100", 8, L(2, 1))).empty());  // no recomputation at all
}

}  // namespace
}  // namespace paratune
