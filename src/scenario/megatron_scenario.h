// ApplyMegatronArgs: a scenario whose model, training shape and layout come from a Megatron-LM
// argument list (`estimate --from-megatron`, paratune.estimate(from_megatron=...)), parsed by
// layout/megatron_args.h; the cluster stays the one the request gives. Shared by the CLI and
// the Python module.
#pragma once

#include <optional>
#include <string>

#include "layout/megatron_args.h"
#include "scenario/resolve_scenario.h"
#include "scenario/scenario_request.h"

namespace paratune {

// Replaces the model, training and layout of `s` (resolved from `given`) by those of `line`,
// when there is one. Throws InputError when `given` also sets one of them, when tp*pp*cp does not
// divide the cluster's GPUs, or for `ignore_unknown` without a list. Megatron's default global
// batch (micro-batch * dp) is taken when the list has none, with a note.
std::optional<MegatronArgs> ApplyMegatronArgs(const std::optional<std::string>& line, bool ignore_unknown,
                                              const ScenarioRequest& given, Scenario& s);

}  // namespace paratune
