// Time to train: how long, in wall-clock days and GPU-hours, a job takes to train a number of
// tokens at the predicted throughput, and with a price per GPU-hour what it costs. Every step
// is taken to run at the predicted step time: no restarts, failures, evaluation, checkpoint
// stalls or warm-up (those only add). docs/cost-model.md, "Time to train".
//
//   wall time = tokens / (tokens/s of the whole job);   days = wall time / 86400 s
//   GPU-hours = days * 24 * GPUs;                       cost = GPU-hours * USD per GPU-hour
//
// GPU-hours are the unit model cards report training in (the Llama 3.1 model card, "Hardware and
// Software": 39.3M GPU-hours on H100-80GB for the three sizes, pretrained on 15T+ tokens).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "step/estimate.h"

namespace paratune {

inline constexpr double kSecondsPerDay = 86400;
inline constexpr double kSecondsPerHour = 3600;

// Upper bounds of the inputs: far above any training run (Llama 3 trained 15e12 tokens; GPU
// time rents for a few USD per hour), low enough that no product overflows or loses meaning.
inline constexpr double kMaxTrainTokens = 1e18;
inline constexpr double kMaxUsdPerGpuHour = 1e4;

// What to train: the token count and, optionally, the price of one GPU-hour in USD.
struct TrainingBudget {
  double train_tokens = 0;
  std::optional<double> usd_per_gpu_hour;
};

struct TimeToTrain {
  double train_tokens = 0;
  double tokens_per_s = 0;  // of the whole job
  int gpus = 0;
  double wall_time_s = 0;  // train_tokens / tokens_per_s
  double gpu_time_s = 0;   // wall_time_s * gpus
  std::optional<double> usd_per_gpu_hour;
  std::optional<double> cost_usd;  // gpu_hours() * usd_per_gpu_hour, with a price

  double days() const { return wall_time_s / kSecondsPerDay; }
  double gpu_hours() const { return gpu_time_s / kSecondsPerHour; }
};

// The token count of `--train-tokens`: a decimal or exponent number ("15e12",
// "15000000000000"), positive, finite, at most kMaxTrainTokens. Throws InputError naming the
// field `train_tokens`.
double ParseTrainTokens(const std::string& text);
// The price of `--gpu-hour-price` in USD per GPU-hour: positive, finite, at most
// kMaxUsdPerGpuHour. Throws InputError naming the field `gpu_hour_price`.
double ParseUsdPerGpuHour(const std::string& text);

// The time to train `budget` at `tokens_per_s` (of the job, > 0) on `gpus` GPUs.
TimeToTrain ComputeTimeToTrain(const TrainingBudget& budget, double tokens_per_s, int gpus);
// The same at the throughput of an estimated step.
TimeToTrain ComputeTimeToTrain(const TrainingBudget& budget, const Estimate& e);

// The JSON object `time_to_train` (docs/json.md): `train_tokens`, `tokens_per_s`, `gpus`,
// `wall_time_s`, `days`, `gpu_hours`, `usd_per_gpu_hour` and `cost_usd` (both null without a
// price).
nlohmann::json TimeToTrainToJson(const TimeToTrain& t);
// `time_to_train` of an estimate: the object above at its throughput with a budget, else null.
nlohmann::json TimeToTrainToJson(const std::optional<TrainingBudget>& budget, const Estimate& e);

}  // namespace paratune
