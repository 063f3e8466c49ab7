// The plan's JSON: both MFUs per ranked layout (one BF16 denominator for every row, and the
// row's own precision), and the time to train per row and for the winner.
#include "plan/plan_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "hardware/hardware_catalog.h"
#include "model/catalog.h"
#include "scenario/default_scenario.h"

namespace paratune {
namespace {

TEST(PlanJson, EveryRowHasBothMfusAndItsTimeToTrain) {
  PlanRequest r;
  r.model = LoadModel("llama-3.1-8b");
  r.cluster = HardwareCatalog::BuiltIn().Cluster("H100", 16);
  r.training = Training{4096, 64, Precision::kBf16};
  r.switches = DefaultLayout();
  r.any_precision = true;
  r.top = 10000;
  const PlanResult res = Plan(r);
  const TrainingBudget budget{15e12, 2.0};
  const nlohmann::json j = PlanToJson(res, r, budget);
  const nlohmann::json& ranked = j.at("ranked");
  ASSERT_EQ(ranked.size(), res.ranked.size());
  int fp8 = 0, bf16 = 0;
  for (const nlohmann::json& row : ranked) {
    SCOPED_TRACE(row.at("rank").get<int>());
    const double own = row.at("mfu").get<double>(), bf = row.at("mfu_vs_bf16_peak").get<double>();
    const std::string precision = row.at("layout").at("precision");
    // H100: FP8 1979 over BF16 989.5 TFLOP/s dense = 2; BF16 rows have one MFU.
    if (precision == "fp8") {
      ++fp8;
      EXPECT_DOUBLE_EQ(bf / own, 2.0);
    } else if (precision == "bf16") {
      ++bf16;
      EXPECT_EQ(bf, own);
    }
    // Days = tokens / (tokens/s per GPU * 16 GPUs) / 86400; GPU-hours = days * 24 * 16.
    const nlohmann::json& t = row.at("time_to_train");
    const double days = 15e12 / (row.at("tokens_per_s_per_gpu").get<double>() * 16) / 86400;
    EXPECT_DOUBLE_EQ(t.at("days").get<double>(), days);
    EXPECT_DOUBLE_EQ(t.at("gpu_hours").get<double>(), days * 24 * 16);
    EXPECT_DOUBLE_EQ(t.at("cost_usd").get<double>(), days * 24 * 16 * 2.0);
  }
  EXPECT_GT(fp8, 0);
  EXPECT_GT(bf16, 0);
  EXPECT_EQ(j.at("winner").at("time_to_train"), ranked.at(0).at("time_to_train"));
  EXPECT_EQ(j.at("winner").at("throughput").at("mfu_vs_bf16_peak"), ranked.at(0).at("mfu_vs_bf16_peak"));

  const nlohmann::json without = PlanToJson(res, r);
  EXPECT_TRUE(without.at("ranked").at(0).at("time_to_train").is_null());
  EXPECT_TRUE(without.at("winner").at("time_to_train").is_null());
}

}  // namespace
}  // namespace paratune
