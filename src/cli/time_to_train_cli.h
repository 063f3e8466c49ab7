// --train-tokens and --gpu-hour-price of `estimate` and `plan`, and the text that shows the time
// to train (step/time_to_train.h computes it).
#pragma once

#include <optional>
#include <string>

#include "step/time_to_train.h"

namespace CLI {
class App;  // CLI/App.hpp: the .cc files that register flags include CLI/CLI.hpp
}  // namespace CLI

namespace paratune::cli {

struct TimeToTrainFlags {
  std::string train_tokens;
  std::string gpu_hour_price;
};

// Registers the two flags on `cmd`, writing into `f`.
void AddTimeToTrainFlags(CLI::App* cmd, TimeToTrainFlags& f);

// The budget the flags give, or none without --train-tokens. Throws InputError for a bad number
// and for --gpu-hour-price without --train-tokens.
std::optional<TrainingBudget> ResolveTrainingBudget(const TimeToTrainFlags& f, const CLI::App& cmd);

// 8.53M, 4.27k, 950: a count or an amount with an SI-style suffix (k = 1e3, M = 1e6, B = 1e9).
std::string Abbreviated(double x);

// "173.6 days, 4.27M GPU-hours on 1024 GPUs, 8.53M USD at 2.00 USD per GPU-hour" (no cost part
// without a price).
std::string DescribeTimeToTrain(const TimeToTrain& t);

}  // namespace paratune::cli
