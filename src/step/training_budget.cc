#include "step/training_budget.h"

#include "util/error.h"

namespace paratune {

std::optional<TrainingBudget> ResolveTrainingBudget(const std::optional<std::string>& train_tokens,
                                                    const std::optional<std::string>& gpu_hour_price) {
  if (gpu_hour_price && !train_tokens) throw InputError("--gpu-hour-price needs --train-tokens (the tokens to train)");
  if (!train_tokens) return std::nullopt;
  TrainingBudget b;
  b.train_tokens = ParseTrainTokens(*train_tokens);
  if (gpu_hour_price) b.usd_per_gpu_hour = ParseUsdPerGpuHour(*gpu_hour_price);
  return b;
}

}  // namespace paratune
