// Link loads: how long each port of each stage's GPUs (cost/link_use.h) carries collectives in a
// step, and the bound that puts on the step. A port carries one transfer at a time, so its busy
// time (every transfer counted at the port's full rate) can never exceed the step: a collective
// hides only behind compute that runs while it runs, and two collectives on one port cannot hide
// behind the same compute twice. docs/cost-model.md, "Link occupancy".
#pragma once

#include <array>
#include <vector>

#include "cost/stage_costs.h"
#include "step/estimate.h"

namespace paratune {

// Data-parallel calls a stage makes per step. Gradient reductions: ZeRO-2/3 shard the gradients,
// so every micro-batch's are reduce-scattered (DeepSpeed's per-micro-step reduction, FSDP without
// no_sync); ZeRO-0/1 accumulate and reduce once. Parameter gathers: ZeRO-3 gathers before each
// forward and backward of every micro-batch; ZeRO-1/2 once, after the optimizer step; none
// without ZeRO.
double GradReductionsPerStep(const StepCosts& sc, const Layout& l);
double ParamGathersPerStep(const StepCosts& sc, const Layout& l);

// Each port's load on each stage: its in-stage collectives (forward, backward), pipeline sends
// and DP collectives, at full rate (spine: the part of the scale-out work that leaves its leaf
// switch). Indexed [stage][port].
std::vector<std::array<LinkLoad, kPorts>> StageLinkLoads(const StepCosts& sc, const Layout& l);

// A port carries none of its work during the stage's optimizer, so the step lasts at least each
// stage's busiest port plus its optimizer. The simulation lets parameter gathers overlap the
// pipeline transfers on a shared port; what that leaves short of the bound is added to
// e.step_time_s and charged to e.time's DP or PP term, whichever holds more of the port.
void BoundByLinks(const StepCosts& sc, const std::vector<std::array<LinkLoad, kPorts>>& loads, Estimate& e);

// The busiest stage's load per port the step uses, with its utilisation of a step of step_s.
std::vector<LinkLoad> BusiestLinks(const std::vector<std::array<LinkLoad, kPorts>>& loads, double step_s);

}  // namespace paratune
