#include "step/link_loads.h"

namespace paratune {

double GradReductionsPerStep(const StepCosts& sc, const Layout& l) {
  return l.zero >= 2 ? static_cast<double>(sc.micro_batches) : 1;
}

double ParamGathersPerStep(const StepCosts& sc, const Layout& l) {
  if (l.zero == 0) return 0;
  return l.zero == 3 ? static_cast<double>(sc.micro_batches) * (sc.zero3_gathers_forward + sc.zero3_gathers_backward)
                     : 1;
}

// Each port's busy time on each stage, at full rate: the work the simulation ran on it (spine:
// the part of the scale-out work that leaves its leaf switch). Indexed [stage][port].
std::vector<std::array<LinkLoad, kPorts>> StageLinkLoads(const StepCosts& sc, const Layout& l) {
  const double md = static_cast<double>(sc.micro_batches);
  const int pp = l.pp;
  std::vector<std::array<LinkLoad, kPorts>> out(static_cast<size_t>(pp));
  for (int s = 0; s < pp; ++s) {
    const StageCost& st = sc.stages[static_cast<size_t>(s)];
    PortTimes sends, dp;
    if (pp > 1) {
      // Sends per rank: every forward but the last stage's, every backward but the first's.
      const double n = 2 * md * l.vp - (s == pp - 1 ? md : 0) - (s == 0 ? md : 0);
      AddPortTime(sends, sc.pp_links, n * sc.p2p_s);
    }
    const double gathers = ParamGathersPerStep(sc, l), reductions = GradReductionsPerStep(sc, l);
    AddPortTime(dp, sc.dense_dp_links, reductions * st.grad_reduce_dense_s + gathers * st.param_gather_dense_s);
    AddPortTime(dp, sc.expert_dp_links, reductions * st.grad_reduce_expert_s + gathers * st.param_gather_expert_s);
    for (int pi = 0; pi < kPorts; ++pi) {
      const Port port = static_cast<Port>(pi);
      LinkLoad& ld = out[static_cast<size_t>(s)][static_cast<size_t>(pi)];
      ld.link = PortName(port);
      ld.stage = s;
      ld.forward_s = md * st.forward_ports_s[port];
      ld.backward_s = md * st.backward_ports_s[port];
      ld.pp_s = sends[port];
      ld.dp_s = dp[port];
      ld.busy_s = ld.forward_s + ld.backward_s + ld.pp_s + ld.dp_s;
    }
  }
  return out;
}

// A port carries its work one transfer at a time, and none of it during the stage's optimizer, so
// the step lasts at least each stage's busiest port plus its optimizer. The simulation lets the
// parameter gathers overlap the pipeline transfers on a shared port; what that leaves short of
// the bound is added to the step, charged to the DP or PP term, whichever holds more of the port.
void BoundByLinks(const StepCosts& sc, const std::vector<std::array<LinkLoad, kPorts>>& loads, Estimate& e) {
  // A port the simulation kept busy for the whole step sums to the step up to rounding: only a
  // deficit beyond that (1e-9 of the step) lengthens it.
  double deficit = 1e-9 * e.step_time_s;
  const LinkLoad* worst = nullptr;
  for (size_t s = 0; s < loads.size(); ++s)
    for (const LinkLoad& ld : loads[s]) {
      const double d = ld.busy_s + sc.stages[s].optimizer_s - e.step_time_s;
      if (d > deficit) {
        deficit = d;
        worst = &ld;
      }
    }
  if (!worst) return;
  e.step_time_s += deficit;
  (worst->dp_s >= worst->pp_s ? e.time.dp_s : e.time.pp_s) += deficit;
}

// The busiest stage's figures per port the step uses.
std::vector<LinkLoad> BusiestLinks(const std::vector<std::array<LinkLoad, kPorts>>& loads, double step_s) {
  std::vector<LinkLoad> out;
  for (int pi = 0; pi < kPorts; ++pi) {
    const LinkLoad* best = nullptr;
    for (const auto& stage : loads)
      if (!best || stage[static_cast<size_t>(pi)].busy_s > best->busy_s) best = &stage[static_cast<size_t>(pi)];
    if (!best || best->busy_s <= 0) continue;
    out.push_back(*best);
    out.back().utilisation = step_s > 0 ? best->busy_s / step_s : 0;
  }
  return out;
}

}  // namespace paratune
