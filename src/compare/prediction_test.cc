#include "compare/prediction.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "compare/prediction_json.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// One rank whose kept ProfilerSteps average `step_s`, from a job of `world` ranks.
TraceAnalysis OneRank(double step_s, int world) {
  TraceAnalysis a;
  RankAnalysis r;
  r.world_size = world;
  r.step_time.count = 3;
  r.step_time.mean = step_s;
  a.ranks.push_back(r);
  return a;
}

Estimate Predicted(double mfu, double step_s, int gpus) {
  Estimate e;
  e.model = "llama-3.1-8b";
  e.gpus = gpus;
  e.mfu = mfu;
  e.step_time_s = step_s;
  e.training.global_batch = 16;
  e.training.seq = 4096;
  return e;
}

// Measured MFU = predicted MFU x predicted step / measured step (same FLOPs, GPUs, peak):
// 0.40 x 2 s / 0.1 s = 8, i.e. 800 %: impossible, and the report says why.
TEST(Prediction, MeasuredMfuAbove100PercentIsFlaggedWithTheLikelyCause) {
  const PredictionComparison c = ComparePrediction(OneRank(0.1, 128), Predicted(0.40, 2.0, 8), SimulationResult{});
  EXPECT_TRUE(c.measured_from_steps);
  EXPECT_DOUBLE_EQ(c.measured_step_time_s, 0.1);
  EXPECT_NEAR(c.measured_mfu, 8.0, 1e-12);
  EXPECT_TRUE(c.mfu_impossible);
  EXPECT_EQ(c.mfu_warning.find('\n'), std::string::npos);
  EXPECT_CONTAINS(c.mfu_warning, "measured MFU 800.0% is impossible (above 100%)");
  EXPECT_CONTAINS(c.mfu_warning,
                  "the model (llama-3.1-8b), GPU count (8) or global batch (16 sequences of 4096 tokens)");
  EXPECT_CONTAINS(c.mfu_warning, "the traces come from a job of 128 ranks, the prediction is for 8 GPUs");
  const nlohmann::json j = PredictionJson(c);
  EXPECT_EQ(j.at("mfu_impossible"), true);
  EXPECT_EQ(j.at("mfu_warning"), c.mfu_warning);
}

// 0.40 x 1 s / 2 s = 0.20: possible, no warning; a world size equal to the GPUs adds no hint.
TEST(Prediction, PlausibleMfuIsNotFlagged) {
  const PredictionComparison c = ComparePrediction(OneRank(2.0, 8), Predicted(0.40, 1.0, 8), SimulationResult{});
  EXPECT_NEAR(c.measured_mfu, 0.20, 1e-12);
  EXPECT_FALSE(c.mfu_impossible);
  EXPECT_EQ(c.mfu_warning, "");
  EXPECT_TRUE(PredictionJson(c).at("mfu_warning").is_null());
  // Exactly 100 % is the limit, not beyond it.
  EXPECT_FALSE(ComparePrediction(OneRank(1.0, 8), Predicted(0.5, 2.0, 8), SimulationResult{}).mfu_impossible);
  const PredictionComparison same_world =
      ComparePrediction(OneRank(0.1, 8), Predicted(0.40, 2.0, 8), SimulationResult{});
  EXPECT_TRUE(same_world.mfu_impossible);
  EXPECT_EQ(same_world.mfu_warning.find("ranks, the prediction"), std::string::npos);
}

// Issue 32: 65.7% MFU on a 128-rank trace whose compute is 20% of GPU time warned only above
// 100%. MFU over the compute share is the share of peak the compute kernels would need: 3.3x.
TEST(Prediction, MfuAboveTheComputeShareIsFlagged) {
  TraceAnalysis a = OneRank(1.0, 128);
  a.ranks[0].temporal = {1.0, 0.2, 0.3, 0.5, 0.4};  // 20% compute
  const PredictionComparison c = ComparePrediction(a, Predicted(0.657, 1.0, 128), SimulationResult{});
  EXPECT_NEAR(c.measured_mfu, 0.657, 1e-12);
  EXPECT_TRUE(c.mfu_impossible);
  EXPECT_CONTAINS(c.mfu_warning,
                  "measured MFU 65.7% would need 328% of the peak during the 20.0% of GPU time the trace spends in "
                  "compute kernels");
  // A world size other than the prediction's is said even when the MFU is possible.
  TraceAnalysis b = OneRank(2.0, 128);
  b.ranks[0].temporal = {2.0, 1.6, 0.2, 0.2, 0.2};
  const PredictionComparison d = ComparePrediction(b, Predicted(0.40, 1.0, 8), SimulationResult{});
  EXPECT_FALSE(d.mfu_impossible);
  EXPECT_CONTAINS(d.mfu_warning, "the traces come from a job of 128 ranks, the prediction is for 8 GPUs");
}

// The measured breakdown is the ranks' mean, field by field, in the one vocabulary: windows of
// 1 s and 3 s with 0.2 s and 1.8 s of compute give a mean 2 s window with 1 s of compute (50 %),
// 0.3 s non-compute (15 %) and 0.7 s idle (35 %). Without ProfilerSteps the step is that window.
TEST(Prediction, MeasuredBreakdownIsTheRanksMean) {
  TraceAnalysis a;
  RankAnalysis r0, r1;
  r0.temporal = {1.0, 0.2, 0.3, 0.5, 0.4};
  r1.temporal = {3.0, 1.8, 0.3, 0.9, 1.0};
  a.ranks = {r0, r1};
  const PredictionComparison c = ComparePrediction(a, Predicted(0.4, 1.0, 8), SimulationResult{});
  EXPECT_FALSE(c.measured_from_steps);
  EXPECT_DOUBLE_EQ(c.measured_step_time_s, 2.0);
  EXPECT_DOUBLE_EQ(c.measured.window_s, 2.0);
  EXPECT_DOUBLE_EQ(c.measured.compute_pct(), 50.0);
  EXPECT_DOUBLE_EQ(c.measured.non_compute_pct(), 15.0);
  EXPECT_DOUBLE_EQ(c.measured.idle_pct(), 35.0);
  EXPECT_DOUBLE_EQ(c.measured.comm_s, 0.7);
  const nlohmann::json j = PredictionJson(c);
  EXPECT_DOUBLE_EQ(j.at("measured").at("compute_pct").get<double>(), 50.0);
  // No simulated timeline: the predicted breakdown is empty (0 %).
  EXPECT_DOUBLE_EQ(j.at("predicted").at("idle_pct").get<double>(), 0.0);
}

}  // namespace
}  // namespace paratune
