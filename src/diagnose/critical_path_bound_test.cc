#include <gtest/gtest.h>

#include "diagnose/rules.h"
#include "util/test_util.h"

namespace paratune {
namespace {

std::vector<Finding> RunRule(const TraceAnalysis& a) {
  DiagnoseInputs in;
  in.analysis = a;
  std::vector<Finding> out;
  MakeCriticalPathRule()->Check(in, &out);
  return out;
}

// A rank whose 100 ms window has a 60 ms path: 40 ms GPU compute, 12 ms data loading, 8 ms of
// communication of which `wait_s` waits for rank 2.
RankAnalysis Rank(int rank, double wait_s) {
  RankAnalysis r;
  r.rank = rank;
  TraceCriticalPath& c = r.critical_path.emplace();
  c.window_start_s = 0;
  c.window_end_s = 0.1;
  c.length_s = 0.06;
  c.bounds = {{CriticalBound::kDataLoading, 0.012, 20},
              {CriticalBound::kGpuCompute, 0.04, 66.7},
              {CriticalBound::kGpuCommunication, 0.008, 13.3}};
  c.collective_wait_s = wait_s;
  if (wait_s > 0) c.waited_for = {{2, 3, wait_s}};
  return r;
}

// Data loading is 20% of both paths (loss 12 ms of the 100 ms window); rank 0 waits 7.2 ms (12%
// of its path) for rank 2, rank 1 only 1.2 ms (2%, not named). Not CPU-bound (no CPU share).
TEST(CriticalPathRule, DataLoadingAndCollectiveWaits) {
  TraceAnalysis a;
  a.ranks = {Rank(0, 0.0072), Rank(1, 0.0012)};
  const std::vector<Finding> f = RunRule(a);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].title, "data loading on the critical path: 20% of it");
  EXPECT_NEAR(f[0].loss_fraction, 0.12, 1e-12);
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_EQ(f[0].where.gpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(f[1].title, "critical paths wait at collectives for rank 2");
  EXPECT_NEAR(f[1].loss_fraction, 0.072, 1e-12);
  EXPECT_EQ(f[1].where.gpus, (std::vector<int>{0}));
  EXPECT_CONTAINS(f[1].message, "rank 2 arrived last for 7.20 ms");
}

// No critical path (diagnose of an analysis without one): nothing.
TEST(CriticalPathRule, SilentWithoutAPath) {
  TraceAnalysis a;
  a.ranks.emplace_back();
  EXPECT_TRUE(RunRule(a).empty());
}

}  // namespace
}  // namespace paratune
