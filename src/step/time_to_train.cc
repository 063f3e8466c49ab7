#include "step/time_to_train.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/text.h"

namespace paratune {
namespace {

// A finite number in (0, max], the whole of `text`; the errors name `field` in backquotes (the
// CLI shows it as its flag, util/field_flags.cc).
double ParseBoundedPositive(const std::string& text, const char* field, const char* what, const char* example,
                            double max) {
  double x = 0;
  if (ParseNumber(text, &x) != NumberParse::kOk)
    throw InputError(fmt::format("`{}` expects {} as a number (e.g. {}), got '{}'", field, what, example, text));
  if (x <= 0) throw InputError(fmt::format("`{}` must be positive, got {}", field, text));
  if (x > max) throw InputError(fmt::format("`{}` must be at most {:g}, got {}", field, max, text));
  return x;
}

}  // namespace

double ParseTrainTokens(const std::string& text) {
  return ParseBoundedPositive(text, "train_tokens", "the tokens to train", "15e12", kMaxTrainTokens);
}

double ParseUsdPerGpuHour(const std::string& text) {
  return ParseBoundedPositive(text, "gpu_hour_price", "USD per GPU-hour", "2.5", kMaxUsdPerGpuHour);
}

TimeToTrain ComputeTimeToTrain(const TrainingBudget& budget, double tokens_per_s, int gpus) {
  TimeToTrain t;
  t.train_tokens = budget.train_tokens;
  t.tokens_per_s = tokens_per_s;
  t.gpus = gpus;
  t.wall_time_s = budget.train_tokens / tokens_per_s;
  t.gpu_time_s = t.wall_time_s * gpus;
  t.usd_per_gpu_hour = budget.usd_per_gpu_hour;
  if (budget.usd_per_gpu_hour) t.cost_usd = t.gpu_hours() * *budget.usd_per_gpu_hour;
  return t;
}

TimeToTrain ComputeTimeToTrain(const TrainingBudget& budget, const Estimate& e) {
  return ComputeTimeToTrain(budget, e.tokens_per_s, e.gpus);
}

nlohmann::json TimeToTrainToJson(const TimeToTrain& t) {
  auto optional = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"train_tokens", t.train_tokens},
          {"tokens_per_s", t.tokens_per_s},
          {"gpus", t.gpus},
          {"wall_time_s", t.wall_time_s},
          {"days", t.days()},
          {"gpu_hours", t.gpu_hours()},
          {"usd_per_gpu_hour", optional(t.usd_per_gpu_hour)},
          {"cost_usd", optional(t.cost_usd)}};
}

nlohmann::json TimeToTrainToJson(const std::optional<TrainingBudget>& budget, const Estimate& e) {
  return budget ? TimeToTrainToJson(ComputeTimeToTrain(*budget, e)) : nlohmann::json(nullptr);
}

}  // namespace paratune
