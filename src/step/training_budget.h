// ResolveTrainingBudget: the tokens to train and the GPU-hour price as given (the CLI's
// --train-tokens and --gpu-hour-price, the Python module's train_tokens and gpu_hour_price, as
// text) turned into the TrainingBudget whose time to train `estimate` and `plan` report
// (step/time_to_train.h). Shared by the CLI and the Python module.
#pragma once

#include <optional>
#include <string>

#include "step/time_to_train.h"

namespace paratune {

// No budget without tokens. Throws InputError for a bad number and for a price without tokens.
std::optional<TrainingBudget> ResolveTrainingBudget(const std::optional<std::string>& train_tokens,
                                                    const std::optional<std::string>& gpu_hour_price);

}  // namespace paratune
