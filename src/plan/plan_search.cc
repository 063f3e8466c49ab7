#include "plan/plan_search.h"

#include <fmt/format.h>

#include <tuple>

#include "scenario/resolve_scenario.h"
#include "util/error.h"

namespace paratune {
namespace {

// The layout dimensions the scenario gives pin the search.
void PinGivenDimensions(const ScenarioRequest& given, const Layout& l, PlanRequest& r) {
  auto pin = [&](const char* flag, int v, std::optional<int>& dst) {
    if (given.Given(flag)) dst = v;
  };
  pin("--tp", l.tp, r.tp);
  pin("--pp", l.pp, r.pp);
  pin("--vp", l.vp, r.vp);
  pin("--cp", l.cp, r.cp);
  pin("--ep", l.ep, r.ep);
  pin("--etp", l.etp, r.etp);
  pin("--zero", l.zero, r.zero);
  pin("--mbs", l.mbs, r.mbs);
  if (given.Given("--recompute")) r.recompute = l.recompute;
}

void SetBounds(const PlanSearch& p, PlanRequest& r) {
  r.max_tp = p.max_tp;
  r.max_pp = p.max_pp;
  r.max_vp = p.max_vp;
  r.max_cp = p.max_cp;
  r.max_ep = p.max_ep;
  r.max_mbs = p.max_mbs;
  // A pinned value above its own bound leaves nothing to search: say which two disagree.
  for (auto [flag, bound, pinned] : {std::tuple{"--tp", r.max_tp, r.tp},
                                     {"--pp", r.max_pp, r.pp},
                                     {"--vp", r.max_vp, r.vp},
                                     {"--cp", r.max_cp, r.cp},
                                     {"--ep", r.max_ep, r.ep},
                                     {"--mbs", r.max_mbs, r.mbs}})
    if (pinned && bound > 0 && *pinned > bound)
      throw InputError(
          fmt::format("{} {} is above --max-{} {}: the two exclude each other", flag, *pinned, flag + 2, bound));
}

}  // namespace

PlanRequest ResolvePlanRequest(const ScenarioRequest& scenario, const PlanSearch& search) {
  ScenarioRequest given = scenario;
  const bool any = given.precision == "any";
  if (any) given.precision.clear();
  const Scenario s = ResolveScenario(given);
  PlanRequest r;
  r.model = s.model;
  r.cluster = s.cluster;
  r.training = s.training;
  r.any_precision = any;
  r.switches = s.layout;
  r.options = EstimateOptions{s.rules, {}};
  PinGivenDimensions(given, s.layout, r);
  SetBounds(search, r);
  r.top = search.top;
  r.headroom = search.headroom;
  r.objective = ParseObjective(search.objective, "--objective");
  return r;
}

std::optional<SweepResult> SweepOf(const PlanRequest& r, const PlanSearch& search) {
  if (search.sweep.empty()) return std::nullopt;
  return Sweep(r, kSweepKnobNames.Parse(search.sweep, "--sweep", "sweep knob"));
}

}  // namespace paratune
