// The Python module's keyword arguments: the CLI's flags with underscores (global_batch for
// --global-batch), read into the library's requests (scenario/scenario_request.h,
// plan/plan_search.h). A keyword given as None counts as not given, so the defaults are the
// CLI's. A keyword no table names, or a value of the wrong type, is a Python TypeError.
#pragma once

#include <pybind11/pybind11.h>

#include "plan/plan_search.h"
#include "scenario/scenario_request.h"

namespace paratune::python {

// Reads the scenario keywords of `kwargs` and, with `search`, the plan's (max_tp ... headroom);
// `function` names the caller in a TypeError ("plan() got an unexpected keyword argument 'x'").
ScenarioRequest ReadKeywords(const pybind11::dict& kwargs, const char* function, PlanSearch* search = nullptr);

}  // namespace paratune::python
