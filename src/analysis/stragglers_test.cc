#include "analysis/stragglers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "util/test_util.h"

namespace paratune {
namespace {

constexpr int64_t kMs = 1'000'000;

// One rank's trace: all-reduce kernels lasting `durs_ms` (process group `pg`; no args when
// empty), 10 ms apart from `clock_ns` on, each followed by a gemm (not communication). With
// `reverse` the file lists them last first, so only the start times give the order.
RankTrace AllReduceRank(const std::vector<double>& durs_ms, int64_t clock_ns, const std::string& pg = "0",
                        bool reverse = false) {
  RankTrace t;
  t.names = {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
             "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"};
  if (!pg.empty()) t.collectives = {{"allreduce", 1 << 20, 1 << 20, 4, "BFloat16", pg}};
  for (size_t k = 0; k < durs_ms.size(); ++k) {
    TraceEvent ar;
    ar.name = 0;
    ar.kind = EventKind::kKernel;
    ar.ts_ns = clock_ns + static_cast<int64_t>(k) * 10 * kMs;
    ar.dur_ns = std::llround(durs_ms[k] * kMs);
    ar.stream = 20;
    ar.collective = pg.empty() ? -1 : 0;
    TraceEvent gemm = ar;
    gemm.name = 1;
    gemm.ts_ns += 6 * kMs;
    gemm.dur_ns = 3 * kMs;
    gemm.stream = 7;
    gemm.collective = -1;
    t.events.push_back(ar);
    t.events.push_back(gemm);
  }
  if (reverse) std::reverse(t.events.begin(), t.events.end());
  return t;
}

std::vector<StragglerInput> Inputs(const std::vector<RankTrace>& traces,
                                   const std::vector<std::vector<double>>& steps) {
  std::vector<StragglerInput> in(traces.size());
  for (size_t r = 0; r < traces.size(); ++r) {
    in[r].rank = static_cast<int>(r);
    std::vector<uint32_t> events(traces[r].events.size());
    std::iota(events.begin(), events.end(), 0u);
    in[r].comm = CollectiveTimesOf(traces[r], events);
    in[r].step_times_s = steps[r];
  }
  return in;
}

// 4 ranks, 8 all-reduces. Durations (ms), ranks 0..3: collectives 0-6: 5, 4, 1, 3 (median 3.5);
// collective 7: 5, 4, 2, 1 (median 3). Rank 2 is shortest, so last, at 7 of 8, causing
// 7 x (3.5 - 1) = 17.5 ms of wait; rank 3 is last once (3 - 1 = 2 ms). Waits: rank 0 8 x 4 =
// 32 ms, rank 1 8 x 3 = 24, rank 2 (2 - 1) = 1, rank 3 7 x 2 = 14. Communication totals 40, 32,
// 9, 22 ms: median 27, 5% of it 1.35 ms. The clocks are hours apart, which must not matter.
TEST(Straggler, RankThatAlwaysArrivesLast) {
  std::vector<RankTrace> traces;
  traces.push_back(AllReduceRank(std::vector<double>(8, 5), 0));
  traces.push_back(AllReduceRank(std::vector<double>(8, 4), 3'600'000 * kMs, "0", /*reverse=*/true));
  traces.push_back(AllReduceRank({1, 1, 1, 1, 1, 1, 1, 2}, -7'200'000 * kMs, "0", /*reverse=*/true));
  traces.push_back(AllReduceRank({3, 3, 3, 3, 3, 3, 3, 1}, 123 * kMs));
  const StragglerReport r = FindStragglers(Inputs(traces, {{0.1, 0.1}, {0.1, 0.1}, {0.1, 0.1}, {0.1, 0.1}}));
  ASSERT_EQ(r.ranks.size(), 4u);
  EXPECT_EQ(r.collectives_matched, 8);
  const int64_t last[] = {0, 0, 7, 1};
  const double caused_ms[] = {0, 0, 17.5, 2};
  const double waited_ms[] = {32, 24, 1, 14};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r.ranks[i].rank, static_cast<int>(i));
    EXPECT_EQ(r.ranks[i].collectives_matched, 8) << i;
    EXPECT_EQ(r.ranks[i].last_arrivals, last[i]) << i;
    EXPECT_NEAR(r.ranks[i].caused_wait_s, caused_ms[i] * 1e-3, 1e-12) << i;
    EXPECT_NEAR(r.ranks[i].waited_s, waited_ms[i] * 1e-3, 1e-12) << i;
    EXPECT_DOUBLE_EQ(r.ranks[i].mean_step_time_s, 0.1);
    EXPECT_EQ(r.ranks[i].step_time_robust_z, 0) << "MAD is 0";
    EXPECT_EQ(r.ranks[i].straggler, i == 2) << i;
  }
  EXPECT_EQ(r.stragglers, std::vector<int>{2});
  EXPECT_EQ(r.ranks[2].reason, "last to arrive at 7 of 8 matched collectives; the other ranks waited 17.5 ms for it");
  EXPECT_TRUE(r.ranks[3].reason.empty());
}

// Two process groups on different ranks: group "A" (ranks 0, 1) where rank 1 is always shorter
// (3 vs 1 ms: median 2, caused 4 x 1 = 4 ms), group "B" (ranks 2, 3) with equal durations, where
// nobody is last. A 50 ms all-reduce without args on rank 0 only forms a third group with no
// partner and is not matched. Totals 62, 4, 8, 8 ms: median 8, 5% 0.4 ms.
TEST(Straggler, MatchesWithinProcessGroupsAndIgnoresTies) {
  std::vector<RankTrace> traces;
  traces.push_back(AllReduceRank({3, 3, 3, 3}, 0, "A"));
  traces.push_back(AllReduceRank({1, 1, 1, 1}, 0, "A"));
  traces.push_back(AllReduceRank({2, 2, 2, 2}, 0, "B"));
  traces.push_back(AllReduceRank({2, 2, 2, 2}, 0, "B"));
  // Rank 0 also runs an all-reduce without args, after the others.
  TraceEvent extra = traces[0].events[0];
  extra.ts_ns = 100 * kMs;
  extra.dur_ns = 50 * kMs;
  extra.collective = -1;
  traces[0].events.push_back(extra);
  const StragglerReport r = FindStragglers(Inputs(traces, {{}, {}, {}, {}}));
  EXPECT_EQ(r.collectives_matched, 8);
  EXPECT_EQ(r.ranks[0].collectives_matched, 4);
  EXPECT_EQ(r.ranks[1].last_arrivals, 4);
  EXPECT_NEAR(r.ranks[1].caused_wait_s, 4e-3, 1e-12);
  EXPECT_NEAR(r.ranks[0].waited_s, 8e-3, 1e-12);
  EXPECT_EQ(r.ranks[2].last_arrivals, 0);
  EXPECT_EQ(r.ranks[3].last_arrivals, 0);
  EXPECT_EQ(r.ranks[2].waited_s, 0);
  EXPECT_EQ(r.ranks[0].mean_step_time_s, 0);
  EXPECT_EQ(r.stragglers, std::vector<int>{1});
}

// The shortest kernel rotates over the ranks (each last at 2 of 8, 25%), step times differ a
// little: means 100, 101, 99, 100 ms, median 100, MAD median(0, 1, 1, 0) = 0.5 ms, so rank 1's
// z = 1 / (1.4826 x 0.5) = 1.349.
TEST(Straggler, BalancedRanksAreNotFlagged) {
  std::vector<RankTrace> traces;
  for (int r = 0; r < 4; ++r) {
    std::vector<double> d(8, 1.2);
    d[static_cast<size_t>(r)] = d[static_cast<size_t>(r) + 4] = 1.0;
    traces.push_back(AllReduceRank(d, r * 977 * kMs));
  }
  const StragglerReport r = FindStragglers(Inputs(traces, {{0.1, 0.1}, {0.100, 0.102}, {0.099, 0.099}, {0.1, 0.1}}));
  EXPECT_EQ(r.collectives_matched, 8);
  for (const StragglerRank& s : r.ranks) {
    EXPECT_EQ(s.last_arrivals, 2) << s.rank;
    EXPECT_NEAR(s.caused_wait_s, 2 * 0.2e-3, 1e-12) << s.rank;  // median 1.2 - 1.0, twice
    EXPECT_FALSE(s.straggler) << s.rank;
  }
  EXPECT_NEAR(r.ranks[1].step_time_robust_z, 1.0 / (1.4826 * 0.5), 1e-6);
  EXPECT_NEAR(r.ranks[2].step_time_robust_z, -1.0 / (1.4826 * 0.5), 1e-6);
  EXPECT_TRUE(r.stragglers.empty());
}

// Rank 2 is always last, but by 0.01 ms of 10 ms kernels: 8 x 0.01 = 0.08 ms caused, below 5% of
// the median rank's 80 ms of communication (4 ms).
TEST(Straggler, LastByATrifleIsNotAStraggler) {
  std::vector<RankTrace> traces;
  for (int r = 0; r < 4; ++r) traces.push_back(AllReduceRank(std::vector<double>(8, r == 2 ? 9.99 : 10), 0));
  const StragglerReport r = FindStragglers(Inputs(traces, {{}, {}, {}, {}}));
  EXPECT_EQ(r.ranks[2].last_arrivals, 8);
  EXPECT_NEAR(r.ranks[2].caused_wait_s, 0.08e-3, 1e-12);
  EXPECT_TRUE(r.stragglers.empty());
}

TEST(Straggler, SingleRankIsNeverAStraggler) {
  std::vector<RankTrace> traces;
  traces.push_back(AllReduceRank({1, 1, 1, 1, 1}, 0));
  const StragglerReport r = FindStragglers(Inputs(traces, {{9.0, 1.0}}));
  ASSERT_EQ(r.ranks.size(), 1u);
  EXPECT_EQ(r.collectives_matched, 0);
  EXPECT_EQ(r.ranks[0].collectives_matched, 0);
  EXPECT_DOUBLE_EQ(r.ranks[0].mean_step_time_s, 5.0);
  EXPECT_FALSE(r.ranks[0].straggler);
  EXPECT_TRUE(r.stragglers.empty());
  EXPECT_TRUE(FindStragglers({}).ranks.empty());
}

// Means 1.00, 1.01, 0.99, 1.00, 1.50 s: median 1.00, deviations 0, .01, .01, 0, .5, MAD 0.01 s,
// so rank 14's z = 0.5 / (1.4826 x 0.01) = 33.72. No communication kernels at all.
TEST(Straggler, StepTimeOutlierAmongFiveRanks) {
  std::vector<StragglerInput> in(5);
  const std::vector<std::vector<double>> steps = {{1.0, 1.0}, {1.0, 1.02}, {0.99}, {0.9, 1.1}, {1.4, 1.6}};
  for (size_t r = 0; r < 5; ++r) {
    in[r].rank = 10 + static_cast<int>(r);
    in[r].step_times_s = steps[r];
  }
  const StragglerReport r = FindStragglers(in);
  EXPECT_NEAR(r.ranks[4].mean_step_time_s, 1.5, 1e-12);
  EXPECT_NEAR(r.ranks[4].step_time_robust_z, 0.5 / (1.4826 * 0.01), 1e-6);
  EXPECT_NEAR(r.ranks[1].step_time_robust_z, 0.01 / (1.4826 * 0.01), 1e-6);
  EXPECT_EQ(r.stragglers, std::vector<int>{14});
  EXPECT_EQ(r.ranks[4].reason, "mean step time 1500.0 ms against the ranks' median 1000.0 ms (robust z 33.7)");
  EXPECT_EQ(r.collectives_matched, 0);

  // With two ranks the z-scores are +-1/1.4826 whatever the spread, and nobody is flagged.
  in.erase(in.begin() + 1, in.begin() + 4);
  const StragglerReport two = FindStragglers(in);
  EXPECT_NEAR(two.ranks[1].step_time_robust_z, 1 / 1.4826, 1e-9);
  EXPECT_TRUE(two.stragglers.empty());
}

}  // namespace
}  // namespace paratune

namespace paratune {
namespace {

// Per-step attribution. 3 ranks, 4 all-reduces, steps 7, 7, 8, 8 (events in file order: all-reduce,
// gemm, ...). Durations (ms) ranks 0..2: collective 0: 4, 4, 1 (rank 2 last, median 4: 3 ms);
// collective 1: 4, 2, 4 (rank 1 last, 2 ms); collective 2: 1, 5, 5 (rank 0 last, 4 ms);
// collective 3: 3, 3, 3 (a tie: nobody). Step 7: rank 2 caused 3 ms of the 5 ms; step 8: rank 0
// caused 4 ms of 4. No rank is last at half of the collectives, so none is flagged for the run.
TEST(Straggler, AttributesTheWaitToSteps) {
  std::vector<RankTrace> traces;
  traces.push_back(AllReduceRank({4, 4, 1, 3}, 0));
  traces.push_back(AllReduceRank({4, 2, 5, 3}, 0));
  traces.push_back(AllReduceRank({1, 4, 5, 3}, 0));
  std::vector<StragglerInput> in = Inputs(traces, {{}, {}, {}});
  const std::vector<int64_t> steps = {7, 7, 7, 7, 8, 8, 8, 8};  // all-reduce and gemm of each pair
  for (size_t r = 0; r < in.size(); ++r) in[r].comm = CollectiveTimesOf(traces[r], {0, 1, 2, 3, 4, 5, 6, 7}, steps);
  const StragglerReport r = FindStragglers(in);
  EXPECT_TRUE(r.stragglers.empty());
  ASSERT_EQ(r.by_step.size(), 2u);
  EXPECT_EQ(r.by_step[0].step, 7);
  EXPECT_EQ(r.by_step[0].rank, 2);
  EXPECT_NEAR(r.by_step[0].caused_wait_s, 3e-3, 1e-12);
  EXPECT_NEAR(r.by_step[0].total_wait_s, 5e-3, 1e-12);
  EXPECT_EQ(r.by_step[0].collectives, 2);
  EXPECT_EQ(r.by_step[1].step, 8);
  EXPECT_EQ(r.by_step[1].rank, 0);
  EXPECT_NEAR(r.by_step[1].caused_wait_s, 4e-3, 1e-12);
  EXPECT_EQ(r.by_step[1].collectives, 2);
  // Without steps there is no per-step view.
  EXPECT_TRUE(FindStragglers(Inputs(traces, {{}, {}, {}})).by_step.empty());
}

}  // namespace
}  // namespace paratune
