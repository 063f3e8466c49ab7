#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "diagnose/rules.h"

namespace paratune {
namespace {

// StragglerDetector reports of 8 ranks: rank `slow` (or none, -1) takes `slowdown` longer per
// iteration; the others differ by a deterministic +-0.4%.
TrainingLog DetectorLog(int reports, int slow, double slowdown) {
  TrainingLog log;
  log.path = "straggler.log";
  for (int k = 0; k < reports; ++k) {
    std::vector<double> rtt(8);
    for (int r = 0; r < 8; ++r)
      rtt[r] = 1.2 * (1.0 + 0.004 * std::sin(3.1 * k + 1.7 * r)) * (r == slow ? 1.0 + slowdown : 1.0);
    int lo = 0, hi = 0;
    for (int r = 1; r < 8; ++r) {
      if (rtt[r] < rtt[lo]) lo = r;
      if (rtt[r] > rtt[hi]) hi = r;
    }
    StragglerDetectorLine d;
    d.line = 2 * k + 2;
    d.iteration = 10 * (k + 1);
    d.time_s = 1714521600.0 + 12.0 * k;
    d.min_rtt_s = rtt[lo];
    d.min_rtt_rank = lo;
    d.max_rtt_s = rtt[hi];
    d.max_rtt_rank = hi;
    // Estimated throughput is the rank's FLOPs over its own time: inversely proportional.
    d.min_etpt_flops = 150e12 * 1.2 / rtt[hi];
    d.min_etpt_rank = hi;
    d.max_etpt_flops = 150e12 * 1.2 / rtt[lo];
    d.max_etpt_rank = lo;
    d.min_clock_hz = slow >= 0 ? 1.59e9 : 1.965e9;
    d.min_clock_rank = slow >= 0 ? slow : k % 8;
    d.max_clock_hz = 1.98e9;
    d.max_clock_rank = 0;
    log.stragglers.push_back(d);
  }
  return log;
}

std::vector<Finding> RunStragglerRule(const DiagnoseInputs& in) {
  std::vector<Finding> out;
  MakeStragglerRule()->Check(in, &out);
  return out;
}

TEST(Straggler, SlowRankInStragglerDetectorReports) {
  DiagnoseInputs in;
  in.logs.push_back(DetectorLog(20, 5, 0.08));
  const auto out = RunStragglerRule(in);
  ASSERT_EQ(out.size(), 1u);
  const Finding& f = out[0];
  EXPECT_EQ(f.rule, "straggler");
  EXPECT_EQ(f.where.gpus, std::vector<int>{5});
  // 1 - min/max = 1 - rtt_min / rtt_5 ~ 1 - 1/1.08 (+- the 0.4% spread of the others).
  EXPECT_NEAR(f.loss_fraction, 1.0 - 1.0 / 1.08, 0.006);
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_NE(f.message.find("lowest SM clock"), std::string::npos);
  EXPECT_EQ(f.where.iterations, (std::vector<int64_t>{10, 200}));
  ASSERT_EQ(f.where.time_ranges_s.size(), 1u);
  EXPECT_DOUBLE_EQ(f.where.time_ranges_s[0].second - f.where.time_ranges_s[0].first, 19 * 12.0);
}

TEST(Straggler, AFifteenPercentStragglerIsCritical) {
  DiagnoseInputs in;
  in.logs.push_back(DetectorLog(10, 2, 0.15));
  const auto out = RunStragglerRule(in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].where.gpus, std::vector<int>{2});
  EXPECT_NEAR(out[0].loss_fraction, 1.0 - 1.0 / 1.15, 0.006);
  EXPECT_EQ(out[0].severity, Severity::kCritical);
}

TEST(Straggler, BalancedRanksAreClean) {
  DiagnoseInputs in;
  in.logs.push_back(DetectorLog(40, -1, 0));
  EXPECT_TRUE(RunStragglerRule(in).empty());
}

TEST(Straggler, TooFewReportsSayNothing) {
  DiagnoseInputs in;
  in.logs.push_back(DetectorLog(4, 5, 0.2));
  EXPECT_TRUE(RunStragglerRule(in).empty());
}

TEST(Straggler, BinomialTailMatchesHandValues) {
  // Through the rule: 3 of 5 reports for one of 8 ranks has chance 1.6% (> 0.1%): not flagged.
  DiagnoseInputs in;
  TrainingLog log = DetectorLog(5, 5, 0.08);
  for (int k = 3; k < 5; ++k) {  // the last two name other ranks
    log.stragglers[k].min_etpt_rank = k;
    log.stragglers[k].max_rtt_rank = k;
  }
  in.logs.push_back(log);
  EXPECT_TRUE(RunStragglerRule(in).empty());
}

TEST(Straggler, FromTraceAnalysis) {
  TraceAnalysis a;
  for (int r = 0; r < 4; ++r) {
    RankAnalysis ra;
    ra.rank = r;
    for (int s = 0; s < 10; ++s) {
      IterationStats it;
      it.step = s;
      it.cpu_step_s = 1.0;
      ra.iterations.push_back(it);
    }
    a.ranks.push_back(ra);
    StragglerRank sr;
    sr.rank = r;
    sr.collectives_matched = 100;
    sr.last_arrivals = r == 3 ? 90 : 3;
    sr.caused_wait_s = r == 3 ? 1.5 : 0.01;
    sr.straggler = r == 3;
    if (sr.straggler) sr.reason = "arrived last at 90 of 100 collectives";
    a.stragglers.ranks.push_back(sr);
  }
  a.stragglers.stragglers = {3};
  a.stragglers.collectives_matched = 100;
  DiagnoseInputs in;
  in.analysis = a;
  const auto out = RunStragglerRule(in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].where.gpus, std::vector<int>{3});
  EXPECT_DOUBLE_EQ(out[0].loss_fraction, 0.15);  // 1.5 s caused over the 10 s the median rank traced
  EXPECT_EQ(out[0].severity, Severity::kCritical);
  EXPECT_NE(out[0].message.find("arrived last at 90 of 100"), std::string::npos);
}

TEST(Straggler, NoStragglerInTracesSaysNothing) {
  DiagnoseInputs in;
  in.analysis = TraceAnalysis{};
  EXPECT_TRUE(RunStragglerRule(in).empty());
}

}  // namespace
}  // namespace paratune
