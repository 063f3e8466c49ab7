#include <gtest/gtest.h>

#include "diagnose/plan_test_util.h"
#include "diagnose/rules.h"
#include "diagnose/what_if.h"
#include "util/test_util.h"

namespace paratune {
namespace {

using testing_plan::L;
using testing_plan::Plan;

std::vector<Finding> DiagnoseTpTooLarge(const PlannedRun& p) { return testing_plan::RunRule(*MakeTpTooLargeRule(), p); }

TEST(TpTooLarge, Llama8bOnOneNodeWithTp8IsFasterWithTp2) {
  // Llama-3.1-8B on 8 H100, global batch 256 x 8192: tp 8 spends a fifth of the step in exposed
  // TP all-reduces; tp 2 x dp 4 fits (62 GB of 80) and tp 1 needs recomputation or a pipeline.
  const PlannedRun p = Plan("llama-3.1-8b", "H100", 8, L(8, 1));
  const std::vector<Finding> f = DiagnoseTpTooLarge(p);
  ASSERT_EQ(f.size(), 1u);
  const Estimate tp2 = EstimateStep(p.model, p.cluster, p.training, L(2, 1));
  EXPECT_TRUE(FitsWithHeadroom(tp2));
  EXPECT_EQ(f[0].rule, "tp_too_large");
  EXPECT_NEAR(f[0].loss_fraction, 1 - p.estimate.tokens_per_s / tp2.tokens_per_s, 1e-12);
  EXPECT_GT(f[0].loss_fraction, 0.15);  // 41.2 s -> 32.6 s per step on this cost model
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_CONTAINS(f[0].fix, "--tp 2 --pp 1");
  EXPECT_CONTAINS(f[0].fix, "(dp 4)");
  EXPECT_CONTAINS(f[0].fix, "--tensor-model-parallel-size 2");
}

TEST(TpTooLarge, ControlTp2IsAlreadyTheBestSmallerTpLayout) {
  // tp 1: pp 1 does not fit without recomputation, with full recomputation it is slower
  // (40.8 s), and tp 1 x pp 2 (33.4 s) is slower than tp 2 (32.6 s).
  EXPECT_TRUE(DiagnoseTpTooLarge(Plan("llama-3.1-8b", "H100", 8, L(2, 1))).empty());
  EXPECT_TRUE(DiagnoseTpTooLarge(Plan("llama-3.1-8b", "H100", 8, L(1, 1, Recompute::kFull))).empty());  // no smaller tp
}

TEST(TpTooLarge, SilentWithoutAPlan) {
  std::vector<Finding> out;
  MakeTpTooLargeRule()->Check(DiagnoseInputs{}, &out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace paratune
