#include "cli/time_to_train_cli.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>

#include "step/training_budget.h"

namespace paratune::cli {

void AddTimeToTrainFlags(CLI::App* cmd, TimeToTrainFlags& f) {
  cmd->add_option("--train-tokens", f.train_tokens,
                  "tokens to train (e.g. 15e12): print the days and GPU-hours at the predicted tokens/s");
  cmd->add_option("--gpu-hour-price", f.gpu_hour_price, "USD per GPU-hour (with --train-tokens): print the cost");
}

std::optional<TrainingBudget> ResolveTrainingBudget(const TimeToTrainFlags& f, const CLI::App& cmd) {
  auto given = [&](const char* flag, const std::string& value) {
    return cmd.count(flag) > 0 ? std::optional<std::string>(value) : std::nullopt;
  };
  return paratune::ResolveTrainingBudget(given("--train-tokens", f.train_tokens),
                                         given("--gpu-hour-price", f.gpu_hour_price));
}

std::string Abbreviated(double x) {
  const double a = std::abs(x);
  if (a >= 1e9) return fmt::format("{:.2f}B", x / 1e9);
  if (a >= 1e6) return fmt::format("{:.2f}M", x / 1e6);
  if (a >= 1e4) return fmt::format("{:.1f}k", x / 1e3);
  return fmt::format("{:.0f}", x);
}

std::string DescribeTimeToTrain(const TimeToTrain& t) {
  std::string s = fmt::format("{:.1f} days, {} GPU-hours on {} GPUs", t.days(), Abbreviated(t.gpu_hours()), t.gpus);
  if (t.cost_usd)
    s += fmt::format(", {} USD at {:.2f} USD per GPU-hour", Abbreviated(*t.cost_usd), *t.usd_per_gpu_hour);
  return s;
}

}  // namespace paratune::cli
