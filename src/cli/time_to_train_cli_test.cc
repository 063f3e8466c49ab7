// End-to-end: --train-tokens and --gpu-hour-price of `estimate` and `plan` (text and JSON),
// their bad input, and the plan table's two MFU columns.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"

namespace {

using namespace paratune::cli_test;

TEST_F(Cli, EstimateTimeToTrain) {
  const Result j = Run({"estimate", "--json", "--train-tokens", "15e12", "--gpu-hour-price", "2"});
  ASSERT_EQ(j.status, 0) << j.err;
  const nlohmann::json e = nlohmann::json::parse(j.out);
  const nlohmann::json& t = e.at("time_to_train");
  // The default scenario runs on 32 GPUs: days = 15e12 / job tokens/s / 86400, GPU-hours =
  // days * 24 * 32, cost = GPU-hours * 2 USD.
  const double days = 15e12 / e.at("throughput").at("tokens_per_s").get<double>() / 86400;
  EXPECT_EQ(t.at("train_tokens"), 15e12);
  EXPECT_EQ(t.at("gpus"), 32);
  EXPECT_DOUBLE_EQ(t.at("days").get<double>(), days);
  EXPECT_DOUBLE_EQ(t.at("gpu_hours").get<double>(), days * 24 * 32);
  EXPECT_DOUBLE_EQ(t.at("cost_usd").get<double>(), days * 24 * 32 * 2);
  EXPECT_TRUE(nlohmann::json::parse(Run({"estimate", "--json"}).out).at("time_to_train").is_null());

  const Result text = Run({"estimate", "--train-tokens", "15e12", "--gpu-hour-price", "2"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_CONTAINS(text.out, "Time to train 1.5e+13 tokens");
  EXPECT_CONTAINS(text.out, "  wall time           ");
  EXPECT_CONTAINS(text.out, "GPU-hours");
  EXPECT_CONTAINS(text.out, "USD at 2.00 USD per GPU-hour");
  const Result plain = Run({"estimate"});
  EXPECT_EQ(plain.out.find("Time to train"), std::string::npos);
  EXPECT_CONTAINS(plain.out, "% of the dense BF16 peak (2250 TFLOP/s)");
}

TEST_F(Cli, TimeToTrainBadInput) {
  EXPECT_EQ(RunBad({"estimate", "--train-tokens", "0"}), "--train-tokens must be positive, got 0");
  EXPECT_EQ(RunBad({"estimate", "--train-tokens", "15T"}),
            "--train-tokens expects the tokens to train as a number (e.g. 15e12), got '15T'");
  EXPECT_EQ(RunBad({"estimate", "--train-tokens", "inf"}),
            "--train-tokens expects the tokens to train as a number (e.g. 15e12), got 'inf'");
  EXPECT_EQ(RunBad({"estimate", "--train-tokens", "1e19"}), "--train-tokens must be at most 1e+18, got 1e19");
  EXPECT_EQ(RunBad({"estimate", "--gpu-hour-price", "2"}),
            "--gpu-hour-price needs --train-tokens (the tokens to train)");
  EXPECT_EQ(RunBad({"plan", "--train-tokens", "1e12", "--gpu-hour-price", "-1"}),
            "--gpu-hour-price must be positive, got -1");
  EXPECT_CONTAINS(RunBad({"plan", "--train-tokens"}), "--train-tokens");
}

// The table's MFU is over the BF16 peak for every row, `own` over the row's precision; with a
// token count the table gains days (and USD with a price) and a line gives #1's time to train.
TEST_F(Cli, PlanShowsBothMfusAndTheTimeToTrain) {
  const std::vector<std::string> args = {
      "plan",  "--model", "llama-3.1-8b", "--gpu",          "H100",  "--nodes",          "2", "--precision", "any",
      "--top", "3",       "--quiet",      "--train-tokens", "15e12", "--gpu-hour-price", "2"};
  const Result text = Run(args);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_CONTAINS(text.out, "    MFU    own   mem/GPU   comm  bubble    days       USD\n");
  EXPECT_CONTAINS(text.out, "MFU: model FLOPs over the dense BF16 peak (989.5 TFLOP/s), one denominator for every row");
  EXPECT_CONTAINS(text.out, "time to train 1.5e+13 tokens with #1: ");
  EXPECT_CONTAINS(text.out, " GPU-hours on 16 GPUs, ");
  EXPECT_CONTAINS(text.out, " USD at 2.00 USD per GPU-hour\n");

  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  const Result j = Run(json_args);
  ASSERT_EQ(j.status, 0) << j.err;
  const nlohmann::json p = nlohmann::json::parse(j.out);
  for (const nlohmann::json& row : p.at("ranked")) {
    const double ratio = row.at("layout").at("precision") == "fp8" ? 2.0 : 1.0;  // H100: 1979 / 989.5
    EXPECT_DOUBLE_EQ(row.at("mfu_vs_bf16_peak").get<double>(), ratio * row.at("mfu").get<double>());
    EXPECT_DOUBLE_EQ(row.at("time_to_train").at("days").get<double>(),
                     15e12 / (row.at("tokens_per_s_per_gpu").get<double>() * 16) / 86400);
  }
  EXPECT_EQ(p.at("winner").at("time_to_train"), p.at("ranked").at(0).at("time_to_train"));
}

}  // namespace
