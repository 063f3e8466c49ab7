// Time to train: hand-derived days, GPU-hours and cost; the parsing of --train-tokens and
// --gpu-hour-price; the figures of an estimate follow its throughput.
#include "step/time_to_train.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "hardware/hardware_catalog.h"
#include "model/catalog.h"
#include "scenario/default_scenario.h"
#include "step/estimate_json.h"
#include "util/error.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// 15e12 tokens at 1e6 tokens/s: 15e6 s = 15e6 / 86400 days = 173.6111... days; on 1024 GPUs
// 15e6 * 1024 / 3600 = 4,266,666.67 GPU-hours; at 2 USD per GPU-hour 8,533,333.33 USD.
TEST(TimeToTrain, HandDerivedDaysGpuHoursAndCost) {
  const TimeToTrain t = ComputeTimeToTrain(TrainingBudget{15e12, 2.0}, 1e6, 1024);
  EXPECT_DOUBLE_EQ(t.wall_time_s, 15e6);
  EXPECT_NEAR(t.days(), 173.611111111, 1e-8);
  EXPECT_NEAR(t.gpu_hours(), 4266666.6666667, 1e-6);
  ASSERT_TRUE(t.cost_usd.has_value());
  EXPECT_NEAR(*t.cost_usd, 8533333.3333333, 1e-6);
  // GPU-hours = days * 24 * GPUs.
  EXPECT_NEAR(t.gpu_hours(), t.days() * 24 * 1024, 1e-6);

  const nlohmann::json j = TimeToTrainToJson(t);
  EXPECT_EQ(j.at("train_tokens"), 15e12);
  EXPECT_EQ(j.at("gpus"), 1024);
  EXPECT_NEAR(j.at("days").get<double>(), 173.611111111, 1e-8);
  EXPECT_NEAR(j.at("gpu_hours").get<double>(), 4266666.6666667, 1e-6);
  EXPECT_EQ(j.at("usd_per_gpu_hour"), 2.0);
  EXPECT_NEAR(j.at("cost_usd").get<double>(), 8533333.3333333, 1e-6);
}

// One day of 8 GPUs at 1000 tokens/s is 86.4e6 tokens and 192 GPU-hours; no price, no cost.
TEST(TimeToTrain, WithoutAPriceThereIsNoCost) {
  const TimeToTrain t = ComputeTimeToTrain(TrainingBudget{86.4e6, std::nullopt}, 1000, 8);
  EXPECT_DOUBLE_EQ(t.days(), 1.0);
  EXPECT_DOUBLE_EQ(t.gpu_hours(), 192.0);
  EXPECT_FALSE(t.cost_usd.has_value());
  const nlohmann::json j = TimeToTrainToJson(t);
  EXPECT_TRUE(j.at("usd_per_gpu_hour").is_null());
  EXPECT_TRUE(j.at("cost_usd").is_null());
}

TEST(TimeToTrain, OfAnEstimateFollowsItsThroughput) {
  const ClusterSpec c = HardwareCatalog::BuiltIn().Cluster(kDefaultGpu, kDefaultNodes * 8);
  const Estimate e = EstimateStep(LoadModel(kDefaultModel), c, DefaultTraining(), DefaultLayout());
  const TimeToTrain t = ComputeTimeToTrain(TrainingBudget{15e12, 3.0}, e);
  EXPECT_EQ(t.gpus, 32);
  EXPECT_DOUBLE_EQ(t.tokens_per_s, e.tokens_per_s);
  EXPECT_DOUBLE_EQ(t.days(), 15e12 / e.tokens_per_s / 86400);
  EXPECT_DOUBLE_EQ(*t.cost_usd, 15e12 / e.tokens_per_s / 3600 * 32 * 3.0);

  const nlohmann::json with = EstimateToJson(e, TrainingBudget{15e12, 3.0});
  EXPECT_DOUBLE_EQ(with.at("time_to_train").at("days").get<double>(), t.days());
  EXPECT_TRUE(EstimateToJson(e).at("time_to_train").is_null());
}

TEST(TimeToTrain, ParsesTokenCountsAndPrices) {
  EXPECT_EQ(ParseTrainTokens("15e12"), 15e12);
  EXPECT_EQ(ParseTrainTokens("15000000000000"), 15e12);
  EXPECT_EQ(ParseTrainTokens("1.5E13"), 15e12);
  EXPECT_EQ(ParseTrainTokens("1e18"), kMaxTrainTokens);
  EXPECT_EQ(ParseUsdPerGpuHour("2.49"), 2.49);
}

TEST(TimeToTrain, BadNumbersAreInputErrorsNamingTheField) {
  auto message = [](auto parse, const std::string& text) {
    try {
      parse(text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto tokens = [](const std::string& s) { return ParseTrainTokens(s); };
  auto price = [](const std::string& s) { return ParseUsdPerGpuHour(s); };
  EXPECT_EQ(message(tokens, "0"), "`train_tokens` must be positive, got 0");
  EXPECT_EQ(message(tokens, "-15e12"), "`train_tokens` must be positive, got -15e12");
  EXPECT_EQ(message(tokens, "2e18"), "`train_tokens` must be at most 1e+18, got 2e18");
  EXPECT_EQ(message(tokens, "abc"), "`train_tokens` expects the tokens to train as a number (e.g. 15e12), got 'abc'");
  for (const char* bad : {"", "15e12x", "15T", "inf", "nan", "1e999"})
    EXPECT_CONTAINS(message(tokens, bad), "`train_tokens` expects the tokens to train as a number");
  EXPECT_EQ(message(price, "0"), "`gpu_hour_price` must be positive, got 0");
  EXPECT_EQ(message(price, "20000"), "`gpu_hour_price` must be at most 10000, got 20000");
  EXPECT_EQ(message(price, "$2"), "`gpu_hour_price` expects USD per GPU-hour as a number (e.g. 2.5), got '$2'");
}

}  // namespace
}  // namespace paratune
