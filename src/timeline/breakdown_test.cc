#include "timeline/breakdown.h"

#include <gtest/gtest.h>

namespace paratune {
namespace {

// Rank 0 computes [0,4] and [6,10], sends [3,7]: 2 s of the send run while it computes nothing
// ([4,6]), so compute 8, comm 4, non-compute (exposed) 2, idle 0. Rank 1 computes [5,9] on two
// streams that overlap ([5,8] and [7,9]): compute counts the union once; idle 6 of the 10 s.
TEST(Breakdown, UnionsAndExposedCommByHand) {
  Timeline t;
  t.ranks = 2;
  t.events = {{0, 0, Phase::kForward, 0, 0, 0, 4, {}},
              {0, 0, Phase::kBackward, 0, 0, 6, 4, {}},
              {0, 1, Phase::kSend, 0, 0, 3, 4, {}},
              {1, 0, Phase::kForward, 0, 0, 5, 3, {}},
              {1, 2, Phase::kOther, -1, -1, 7, 2, "x"}};
  const TimelineBreakdown b = ComputeBreakdown(t);
  EXPECT_DOUBLE_EQ(b.step_time_s, 10);
  EXPECT_DOUBLE_EQ(b.ranks[0].compute_s, 8);
  EXPECT_DOUBLE_EQ(b.ranks[0].comm_s, 4);
  EXPECT_DOUBLE_EQ(b.ranks[0].non_compute_s, 2);
  EXPECT_DOUBLE_EQ(b.ranks[0].window_s - b.ranks[0].compute_s, 2);  // not computing: exposed + idle
  EXPECT_DOUBLE_EQ(b.ranks[0].idle_s, 0);
  EXPECT_DOUBLE_EQ(b.ranks[0].overlap_pct(), 50);
  EXPECT_DOUBLE_EQ(b.ranks[1].compute_s, 4);
  EXPECT_DOUBLE_EQ(b.ranks[1].idle_pct(), 60);
}

TEST(Breakdown, EmptyTimeline) {
  Timeline t;
  t.ranks = 3;
  const TimelineBreakdown b = ComputeBreakdown(t);
  ASSERT_EQ(b.ranks.size(), 3u);
  EXPECT_EQ(b.step_time_s, 0);
}

}  // namespace
}  // namespace paratune
