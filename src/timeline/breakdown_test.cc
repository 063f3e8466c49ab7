#include "timeline/breakdown.h"

#include <gtest/gtest.h>

namespace paratune {
namespace {

// Rank 0 computes [0,4] and [6,10], sends [3,7]: 2 s of the send run while it computes nothing
// ([4,6]), so busy 8, comm 4, exposed 2, idle 2, bubble 0. Rank 1 computes [5,9] on two streams
// that overlap ([5,8] and [7,9]): busy counts the union once.
TEST(Breakdown, UnionsAndExposedCommByHand) {
  Timeline t;
  t.ranks = 2;
  t.events = {{0, 0, Phase::kForward, 0, 0, 0, 4, {}},   {0, 0, Phase::kBackward, 0, 0, 6, 4, {}},
              {0, 1, Phase::kSend, 0, 0, 3, 4, {}},      {1, 0, Phase::kForward, 0, 0, 5, 3, {}},
              {1, 2, Phase::kOther, -1, -1, 7, 2, "x"}};
  const TimelineBreakdown b = ComputeBreakdown(t);
  EXPECT_DOUBLE_EQ(b.step_time_s, 10);
  EXPECT_DOUBLE_EQ(b.ranks[0].busy_s, 8);
  EXPECT_DOUBLE_EQ(b.ranks[0].comm_s, 4);
  EXPECT_DOUBLE_EQ(b.ranks[0].exposed_comm_s, 2);
  EXPECT_DOUBLE_EQ(b.ranks[0].idle_s, 2);
  EXPECT_DOUBLE_EQ(b.ranks[0].bubble_s, 0);
  EXPECT_DOUBLE_EQ(b.ranks[1].busy_s, 4);
  EXPECT_DOUBLE_EQ(b.ranks[1].bubble_share, 0.6);
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
