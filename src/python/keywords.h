// The Python module's keyword arguments: the CLI's flags with underscores (global_batch for
// --global-batch), read into the library's requests (scenario/scenario_request.h,
// plan/plan_search.h) and the training budget's text (step/training_budget.h). A keyword given
// as None counts as not given, so the defaults are the CLI's. A keyword no table names, or a
// value of the wrong type, is a Python TypeError.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "plan/plan_search.h"
#include "scenario/scenario_request.h"

namespace paratune::python {

struct Keywords {
  ScenarioRequest scenario;
  PlanSearch search;                          // plan() only
  std::optional<std::string> train_tokens;    // estimate() and plan(): --train-tokens
  std::optional<std::string> gpu_hour_price;  // --gpu-hour-price
};

// Which keywords a function takes besides the scenario's.
enum class Takes { kScenario, kScenarioAndBudget, kPlan };

// Reads `kwargs`; `function` names the caller in a TypeError ("plan() got an unexpected keyword
// argument 'x'").
Keywords ReadKeywords(const pybind11::dict& kwargs, const char* function, Takes takes);

}  // namespace paratune::python
