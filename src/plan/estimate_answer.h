// EstimateAnswer: what `paratune estimate` answers for a scenario, in the CLI and the Python
// module alike: the estimate of its layout and, when the layout does not fit, the fastest
// one-knob change that does (plan/fitting_change.h). Its JSON is paratune.estimate/1 with the
// optional members "fitting_change" and "megatron_args" (docs/json.md).
#pragma once

#include <optional>

#include <nlohmann/json_fwd.hpp>

#include "layout/megatron_args.h"
#include "plan/fitting_change.h"
#include "scenario/resolve_scenario.h"
#include "step/time_to_train.h"

namespace paratune {

struct EstimateAnswer {
  Estimate estimate;
  std::optional<FittingChange> fitting_change;  // looked for only when `estimate` does not fit
};

EstimateAnswer AnswerEstimate(const Scenario& s);

// With `from`, the Megatron-LM arguments the scenario came from ("megatron_args").
nlohmann::json EstimateAnswerJson(const EstimateAnswer& a, const std::optional<TrainingBudget>& budget,
                                  const std::optional<MegatronArgs>& from);

}  // namespace paratune
