// PlanSearch: what `paratune plan` takes beyond the scenario (bounds of the searched dimensions,
// how many layouts to list, the objective, the HBM headroom), with its defaults, and
// ResolvePlanRequest: a scenario request and a PlanSearch turned into the PlanRequest the planner
// runs. A layout dimension given in the scenario is pinned; the others are searched. Shared by the
// CLI and the Python module.
#pragma once

#include <optional>
#include <string>

#include "plan/plan_request.h"
#include "plan/sweep.h"
#include "scenario/scenario_request.h"

namespace paratune {

struct PlanSearch {
  // Upper bounds of the searched values; 0 = none.
  int max_tp = 0, max_pp = 0, max_vp = 0, max_cp = 0, max_ep = 0, max_mbs = 0;
  int top = 10;                          // layouts listed
  std::string objective = "throughput";  // or "memory" (kObjectiveNames)
  double headroom = 0.05;                // fraction of HBM kept free
  std::string sweep;                     // "" or a knob (kSweepKnobNames): the best layout per value
};

// precision "any" searches every precision the GPU supports. Throws InputError (a bad scenario,
// objective, or a pinned value above its own bound). The request's progress is left unset.
PlanRequest ResolvePlanRequest(const ScenarioRequest& scenario, const PlanSearch& search);

// The sweep `search` asks for (--sweep), run on the request; none when it asks for none. Throws
// InputError for an unknown knob.
std::optional<SweepResult> SweepOf(const PlanRequest& r, const PlanSearch& search);

}  // namespace paratune
