#include "plan/estimate_answer.h"

#include <nlohmann/json.hpp>

#include "step/estimate_json.h"

namespace paratune {

EstimateAnswer AnswerEstimate(const Scenario& s) {
  const EstimateOptions options{s.rules, {}};
  EstimateAnswer a;
  a.estimate = EstimateStep(s.model, s.cluster, s.training, s.layout, options);
  if (!a.estimate.fits) a.fitting_change = FindFittingChange(s.model, s.cluster, s.training, s.layout, options);
  return a;
}

nlohmann::json EstimateAnswerJson(const EstimateAnswer& a, const std::optional<TrainingBudget>& budget,
                                  const std::optional<MegatronArgs>& from) {
  nlohmann::json j = EstimateToJson(a.estimate, budget);
  if (!a.estimate.fits) j["fitting_change"] = FittingChangeJson(a.fitting_change);
  if (from) j["megatron_args"] = MegatronArgsJson(*from);
  return j;
}

}  // namespace paratune
