#include "pipeline/closed_form.h"

#include <gtest/gtest.h>

namespace paratune {
namespace {

// Narayanan et al. 2021 Sec. 2.2: balanced stages, bubble / ideal = (pp-1)/(vp*m); as a share
// of the step (pp-1)/(vp*m + pp - 1).
TEST(PipelineBubble, BalancedMatchesClosedFormOverGrid) {
  for (int pp : {2, 3, 4, 8, 16})
    for (int vp : {1, 2, 4})
      for (int64_t m : {1, 4, 8, 32, 128}) {
        const std::vector<double> t(pp, 0.37);
        const PipelineTime p = ClosedFormPipeline(t, m, vp);
        EXPECT_NEAR(p.bubble_s / p.ideal_s, BubbleOverIdeal(pp, vp, m), 1e-12);
        EXPECT_NEAR(p.bubble_s / p.total(), (pp - 1.0) / (vp * m + pp - 1.0), 1e-12);
      }
}

// Unequal stages by hand: pp=2, m=3, stage times 1 s and 2 s per micro-batch. The slow stage
// runs its 3 micro-batches back to back (6 s) and the fast one adds one pass of fill/drain (1 s).
TEST(PipelineBubble, UnevenStagesByHand) {
  const PipelineTime p = ClosedFormPipeline({1.0, 2.0}, 3, 1);
  EXPECT_DOUBLE_EQ(p.ideal_s, 6.0);
  EXPECT_DOUBLE_EQ(p.bubble_s, 1.0);
}

TEST(PipelineBubble, NoPipelineNoBubble) {
  const PipelineTime p = ClosedFormPipeline({2.5}, 10, 1);
  EXPECT_DOUBLE_EQ(p.bubble_s, 0);
  EXPECT_DOUBLE_EQ(p.total(), 25);
}

}  // namespace
}  // namespace paratune
