#include "analysis/rank_means.h"

#include <gtest/gtest.h>

namespace paratune {
namespace {

RankAnalysis Rank(double step_s, int64_t steps, double compute_pct, double loader_share) {
  RankAnalysis r;
  r.step_time.count = steps;
  r.step_time.mean = step_s;
  r.temporal = {.window_s = 1, .compute_s = compute_pct / 100};
  r.dataloader_share = loader_share;
  return r;
}

CollectiveStats Coll(Collective kind, double exposed_s) {
  CollectiveStats c;
  c.kind = kind;
  c.exposed_s = exposed_s;
  return c;
}

// Two ranks of 2 steps: exposed time per step split by what the kernels serve; a rank without
// ProfilerSteps adds nothing.
TEST(RankMeans, StepFiguresAreTheMeanOverRanksWithSteps) {
  TraceAnalysis a;
  a.ranks = {Rank(1.0, 2, 50, 0.1), Rank(3.0, 2, 25, 0.3), Rank(9.0, 0, 90, 0.9)};
  a.ranks[0].collectives = {Coll(Collective::kSendRecv, 0.2), Coll(Collective::kAllReduce, 0.4)};
  a.ranks[1].collectives = {Coll(Collective::kAllToAll, 0.6)};
  const StepMeans m = MeanStepFigures(a);
  EXPECT_EQ(m.ranks, 2);
  EXPECT_DOUBLE_EQ(m.step_s, 2.0);
  EXPECT_DOUBLE_EQ(m.compute_s, (0.5 * 1.0 + 0.25 * 3.0) / 2);  // 0.625
  EXPECT_DOUBLE_EQ(m.pp_comm_s, 0.2 / 2 / 2);                   // 0.1 per step on rank 0, 0 on rank 1
  EXPECT_DOUBLE_EQ(m.ep_comm_s, 0.6 / 2 / 2);
  EXPECT_DOUBLE_EQ(m.other_comm_s, 0.4 / 2 / 2);
  EXPECT_DOUBLE_EQ(m.dataloader_share, 0.2);
  EXPECT_DOUBLE_EQ(m.exposed_comm_s(), 0.3);
}

TEST(RankMeans, BusBandwidthByKindBesideTheCeilingWhereGiven) {
  TraceAnalysis a;
  a.ranks.resize(2);
  for (int r = 0; r < 2; ++r) {
    CollectiveStats ar = Coll(Collective::kAllReduce, 0), a2a = Coll(Collective::kAllToAll, 0);
    ar.busbw_bytes_per_s = 300e9 + r * 20e9;
    a2a.busbw_bytes_per_s = r == 0 ? 60e9 : 0;  // no sized calls on rank 1: not in the mean
    if (r == 1) ar.ceiling_bytes_per_s = 370e9;
    a.ranks[r].collectives = {ar, a2a};
  }
  const auto m = MeanBusBandwidthByKind(a);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_DOUBLE_EQ(m.at("all_reduce").busbw_bytes_per_s, 310e9);
  EXPECT_TRUE(m.at("all_reduce").has_ceiling);
  EXPECT_DOUBLE_EQ(m.at("all_reduce").ceiling_bytes_per_s, 370e9);  // the one rank that has one
  EXPECT_DOUBLE_EQ(m.at("all_to_all").busbw_bytes_per_s, 60e9);
  EXPECT_FALSE(m.at("all_to_all").has_ceiling);
}

}  // namespace
}  // namespace paratune
