#include "analysis/critical_path_across.h"

#include <gtest/gtest.h>

namespace paratune {
namespace {

using Key = RankCollectiveTimes::GroupKey;

RankPart Part(int rank, std::vector<double> durations, std::vector<uint8_t> on_path, bool with_path = true) {
  RankPart p;
  p.analysis.rank = rank;
  const Key key{Collective::kAllReduce, "0"};
  p.comm.durations_s[key] = std::move(durations);
  if (with_path) {
    p.comm.on_path[key] = std::move(on_path);
    p.analysis.critical_path.emplace();
  }
  return p;
}

// Three ranks, three all-reduces (ms): rank 0 8, 5, 9; rank 1 2, 5, 3; rank 2 6, 1, 3. The
// shortest of each: rank 1 (2), rank 2 (1), ranks 1 and 2 tied (3: no last arrival). Rank 0's
// path holds all three: it waited 8 - 2 = 6 ms for rank 1 and 5 - 1 = 4 ms for rank 2, nothing
// charged for the tie. Rank 1's path holds the second: 5 - 1 = 4 ms for rank 2. Rank 2 has no
// path.
TEST(CollectiveWaits, ChargeTheLastArrival) {
  std::vector<RankPart> parts;
  parts.push_back(Part(0, {8e-3, 5e-3, 9e-3}, {1, 1, 1}));
  parts.push_back(Part(1, {2e-3, 5e-3, 3e-3}, {0, 1, 0}));
  parts.push_back(Part(2, {6e-3, 1e-3, 3e-3}, {}, false));
  SetCollectiveWaits(parts);
  const TraceCriticalPath& p0 = *parts[0].analysis.critical_path;
  EXPECT_NEAR(p0.collective_wait_s, 10e-3, 1e-12);
  ASSERT_EQ(p0.waited_for.size(), 2u);
  EXPECT_EQ(p0.waited_for[0].rank, 1);
  EXPECT_NEAR(p0.waited_for[0].wait_s, 6e-3, 1e-12);
  EXPECT_EQ(p0.waited_for[1].rank, 2);
  EXPECT_EQ(p0.waited_for[1].collectives, 1);
  const TraceCriticalPath& p1 = *parts[1].analysis.critical_path;
  EXPECT_NEAR(p1.collective_wait_s, 4e-3, 1e-12);
  ASSERT_EQ(p1.waited_for.size(), 1u);
  EXPECT_EQ(p1.waited_for[0].rank, 2);
  EXPECT_FALSE(parts[2].analysis.critical_path);
}

// One rank: nobody to wait for; a rank's own shortest kernel charges nothing.
TEST(CollectiveWaits, NeedTwoRanks) {
  std::vector<RankPart> one;
  one.push_back(Part(0, {8e-3}, {1}));
  SetCollectiveWaits(one);
  EXPECT_EQ(one[0].analysis.critical_path->collective_wait_s, 0);
  std::vector<RankPart> two;
  two.push_back(Part(0, {1e-3}, {1}));
  two.push_back(Part(1, {4e-3}, {1}));
  SetCollectiveWaits(two);
  EXPECT_EQ(two[0].analysis.critical_path->collective_wait_s, 0);
  EXPECT_NEAR(two[1].analysis.critical_path->collective_wait_s, 3e-3, 1e-12);
}

}  // namespace
}  // namespace paratune
