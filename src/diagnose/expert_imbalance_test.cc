#include <gtest/gtest.h>

#include "diagnose/plan_test_util.h"
#include "diagnose/rules.h"
#include "diagnose/what_if.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// 8 experts, 4 layers, iterations 0..9, 100 tokens each; from iteration 5 on, expert 5 of
// layers 1 and 2 gets 500.
ExpertTokens Skewed() {
  ExpertTokens t;
  t.path = "tokens.csv";
  int line = 2;
  for (int64_t it = 0; it < 10; ++it)
    for (int layer = 0; layer < 4; ++layer) {
      ExpertTokenCounts c{line, it, layer, std::vector<double>(8, 100.0)};
      if (it >= 5 && (layer == 1 || layer == 2)) c.tokens[5] = 500;
      t.rows.push_back(c);
      line += 8;
    }
  return t;
}

std::vector<Finding> RunExpertImbalance(const DiagnoseInputs& in) {
  std::vector<Finding> out;
  MakeExpertImbalanceRule()->Check(in, &out);
  return out;
}

TEST(ExpertImbalance, HotExpertInTwoLayersFromIteration5) {
  DiagnoseInputs in;
  in.expert_tokens.push_back(Skewed());
  const std::vector<Finding> f = RunExpertImbalance(in);
  ASSERT_EQ(f.size(), 1u);
  // 30 balanced rows (max = mean = 100) and 10 skewed ones (max 500, mean 1200/8 = 150):
  // R = (30*100 + 10*500) / (30*100 + 10*150) = 8000/4500; loss = 1 - 4500/8000 = 0.4375.
  EXPECT_NEAR(f[0].evidence[0].value, 8000.0 / 4500.0, 1e-12);
  EXPECT_NEAR(f[0].loss_fraction, 0.4375, 1e-12);
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  // Iteration 5 is the first over 1.25 (and, tied with 6-9, the worst: (2*100 + 2*500)/(2*100 + 2*150) = 2.4).
  EXPECT_EQ(f[0].where.iterations, (std::vector<int64_t>{5}));
  EXPECT_NEAR(f[0].evidence[2].value, 2.4, 1e-12);
  // The first skewed row: iteration 5, layer 1 = row 21, line 2 + 21*8.
  EXPECT_EQ(f[0].where.lines, (std::vector<std::string>{"tokens.csv:170"}));
  EXPECT_CONTAINS(f[0].message, "layer 1 (");
  EXPECT_CONTAINS(f[0].message, "expert 5 has");
  EXPECT_CONTAINS(f[0].message, "worsening");
  EXPECT_CONTAINS(f[0].fix, "--moe-router-load-balancing-type");
  EXPECT_CONTAINS(f[0].fix, "--moe-router-enable-expert-bias");
}

TEST(ExpertImbalance, WithAMoePlanTheCostModelGivesTheStepLoss) {
  // Mixtral 8x7B on 16 H100 (tp 2, ep 8: one expert per EP rank, so ranks = experts).
  Layout l = testing_plan::L(2, 1);
  l.ep = 8;
  DiagnoseInputs in;
  in.plan = testing_plan::Plan("mixtral-8x7b", "H100", 16, l, 64, 4096);
  in.expert_tokens.push_back(Skewed());
  const std::vector<Finding> f = RunExpertImbalance(in);
  ASSERT_EQ(f.size(), 1u);
  const PlannedRun& p = *in.plan;
  Layout imb = l;
  imb.expert_imbalance = 8000.0 / 4500.0;
  const Estimate ei = EstimateStep(p.model, p.cluster, p.training, imb);
  const Estimate eb = EstimateStep(p.model, p.cluster, p.training, l);
  EXPECT_NEAR(f[0].loss_fraction, 1 - ei.tokens_per_s / eb.tokens_per_s, 1e-12);
  EXPECT_LT(f[0].loss_fraction, 0.4375);  // the dense part of the step is not slowed
  EXPECT_GT(f[0].loss_fraction, 0.10);
  // One expert per EP rank: the ranks' ratio is the experts'.
  EXPECT_CONTAINS(f[0].title, "the busiest expert gets 1.78x the mean tokens");
  EXPECT_CONTAINS(f[0].message, "--expert-imbalance 1.78");
}

TEST(ExpertImbalance, ControlBalancedRouter) {
  // Within 2% of the mean everywhere: R = 102/100.875 = 1.011.
  ExpertTokens t;
  t.path = "ok.csv";
  for (int64_t it = 0; it < 10; ++it)
    for (int layer = 0; layer < 4; ++layer) {
      ExpertTokenCounts c{2, it, layer, {}};
      for (int e = 0; e < 8; ++e) c.tokens.push_back(100 + e % 3);
      t.rows.push_back(c);
    }
  DiagnoseInputs in;
  in.expert_tokens.push_back(t);
  EXPECT_TRUE(RunExpertImbalance(in).empty());
  EXPECT_TRUE(RunExpertImbalance(DiagnoseInputs{}).empty());
}

}  // namespace
}  // namespace paratune
