// ResolveScenario: a ScenarioRequest (scenario/scenario_request.h) turned into the library's
// inputs: the model (catalog, config.json or inline dimensions), the cluster (hardware catalog,
// --hardware file, nodes or GPUs), the training shape and the layout with its stack. What is not
// given comes from the built-in default scenario. Shared by every CLI command and the Python
// module, so that both take the same defaults and say the same one-line InputError.
#pragma once

#include "hardware/cluster.h"
#include "layout/layout.h"
#include "layout/constraints.h"
#include "model/model_spec.h"
#include "scenario/scenario_request.h"

namespace paratune {

struct Scenario {
  ModelSpec model;
  ClusterSpec cluster;
  Training training;
  Layout layout;
  ConstraintOptions rules;
};

// Throws InputError naming the flag at fault.
Scenario ResolveScenario(const ScenarioRequest& r);

}  // namespace paratune
