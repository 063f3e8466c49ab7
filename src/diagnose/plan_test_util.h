// Test helper of the plan rules: a PlannedRun as `paratune diagnose --model ... --gpu ...` builds
// it, the estimate from EstimateStep.
#pragma once

#include <string>

#include "diagnose/inputs.h"
#include "diagnose/rule.h"
#include "hardware/hardware_catalog.h"
#include "model/catalog.h"
#include "scenario/default_scenario.h"

namespace paratune::testing_plan {

inline PlannedRun Plan(const std::string& model, const std::string& gpu, int gpus, const Layout& layout,
                       int64_t global_batch = DefaultTraining().global_batch, int64_t seq = DefaultTraining().seq) {
  PlannedRun p;
  p.model = LoadModel(model);
  p.cluster = HardwareCatalog::BuiltIn().Cluster(gpu, gpus);
  p.training = DefaultTraining();
  p.training.global_batch = global_batch;
  p.training.seq = seq;
  p.layout = layout;
  p.estimate = EstimateStep(p.model, p.cluster, p.training, p.layout, p.options);
  return p;
}

inline Layout L(int tp, int pp, Recompute r = Recompute::kNone) {
  Layout l = DefaultLayout();
  l.tp = tp;
  l.pp = pp;
  l.dp = 0;
  l.recompute = r;
  return l;
}

// The findings of `rule` on a diagnosis whose only input is the plan `p`.
inline std::vector<Finding> RunRule(const Rule& rule, const PlannedRun& p) {
  DiagnoseInputs in;
  in.plan = p;
  std::vector<Finding> out;
  rule.Check(in, &out);
  return out;
}

}  // namespace paratune::testing_plan
