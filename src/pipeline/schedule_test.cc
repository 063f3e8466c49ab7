#include "pipeline/schedule.h"

#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "util/error.h"

namespace paratune {
namespace {

// Every rank runs each (pass, micro-batch, virtual stage) exactly once, F before B before W.
void ExpectComplete(const Schedule& s) {
  for (int r = 0; r < s.pp; ++r) {
    std::map<std::tuple<int, int, int>, size_t> at;
    const auto ops = s.RankOps(r);
    for (size_t i = 0; i < ops.size(); ++i) {
      const auto key = std::tuple{static_cast<int>(ops[i].kind), ops[i].micro_batch, ops[i].virtual_stage};
      EXPECT_TRUE(at.emplace(key, i).second) << "repeated op on rank " << r;
    }
    const size_t passes = s.split_backward ? 3 : 2;
    ASSERT_EQ(ops.size(), passes * static_cast<size_t>(s.m * s.vp)) << ScheduleName(s.kind) << " rank " << r;
    for (int j = 0; j < s.m; ++j)
      for (int c = 0; c < s.vp; ++c) {
        EXPECT_LT(at.at({0, j, c}), at.at({1, j, c}));
        if (s.split_backward) {
          EXPECT_LT(at.at({1, j, c}), at.at({2, j, c}));
        }
      }
  }
}

TEST(Schedule, EveryScheduleRunsEveryPassOnce) {
  for (int pp : {1, 2, 3, 4, 8})
    for (int64_t m : {1, 2, 5, 8, 17}) {
      ExpectComplete(BuildSchedule(ScheduleKind::kGpipe, pp, 1, m));
      ExpectComplete(BuildSchedule(ScheduleKind::k1F1B, pp, 1, m));
      ExpectComplete(BuildSchedule(ScheduleKind::kZbH1, pp, 1, m));
      for (int vp : {2, 3})
        if (m % pp == 0) ExpectComplete(BuildSchedule(ScheduleKind::kInterleaved, pp, vp, m));
    }
}

// Megatron-LM 1F1B: rank r starts with min(pp-r-1, m) forwards, then alternates.
TEST(Schedule, OneFOneBWarmup) {
  const Schedule s = BuildSchedule(ScheduleKind::k1F1B, 4, 1, 8);
  const auto r0 = s.RankOps(0), r3 = s.RankOps(3);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r0[static_cast<size_t>(i)].kind, OpKind::kForward);
  EXPECT_EQ(r0[4].kind, OpKind::kBackward);
  EXPECT_EQ(r3[0].kind, OpKind::kForward);
  EXPECT_EQ(r3[1].kind, OpKind::kBackward);
}

// Megatron-LM interleaved: rank 0 of pp 4, vp 2 warms up with 2*(4-1) + (2-1)*4 = 10 forwards,
// chunk 0 for micro-batches 0-3, chunk 1 for 0-3, then chunk 0 for 4-5.
TEST(Schedule, InterleavedWarmupAndOrder) {
  const Schedule s = BuildSchedule(ScheduleKind::kInterleaved, 4, 2, 8);
  const auto r0 = s.RankOps(0);
  for (int k = 0; k < 10; ++k) EXPECT_EQ(r0[static_cast<size_t>(k)].kind, OpKind::kForward) << k;
  EXPECT_EQ(r0[4].virtual_stage, 1);
  EXPECT_EQ(r0[4].micro_batch, 0);
  EXPECT_EQ(r0[8].virtual_stage, 0);
  EXPECT_EQ(r0[8].micro_batch, 4);
  EXPECT_EQ(r0[11].kind, OpKind::kBackward);  // after the 11th forward
  EXPECT_EQ(r0[11].virtual_stage, 1);         // backward visits the last chunk first
}

TEST(Schedule, RulesAreInputErrors) {
  EXPECT_THROW(BuildSchedule(ScheduleKind::k1F1B, 0, 1, 4), InputError);
  EXPECT_THROW(BuildSchedule(ScheduleKind::k1F1B, 4, 1, 0), InputError);
  EXPECT_THROW(BuildSchedule(ScheduleKind::k1F1B, 4, 2, 8), InputError);
  EXPECT_THROW(BuildSchedule(ScheduleKind::kInterleaved, 4, 1, 8), InputError);
  EXPECT_THROW(BuildSchedule(ScheduleKind::kInterleaved, 4, 2, 3), InputError);
  EXPECT_THROW(BuildSchedule(ScheduleKind::kInterleaved, 4, 2, 6), InputError);
  EXPECT_NO_THROW(BuildSchedule(ScheduleKind::kInterleaved, 4, 2, 12));
  EXPECT_THROW(ParseSchedule("1f2b", "--schedule"), InputError);
  EXPECT_EQ(ParseSchedule("zb-h1", "--schedule"), ScheduleKind::kZbH1);
}

}  // namespace
}  // namespace paratune
