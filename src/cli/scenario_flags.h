// The flags shared by every command that takes a model, a cluster, a training shape and a
// layout (estimate, simulate, plan, analyze, diagnose), and the request they give the library.
#pragma once

#include <optional>
#include <string>

#include "scenario/resolve_scenario.h"
#include "scenario/scenario_request.h"
#include "step/estimate.h"

namespace CLI {
class App;  // CLI/App.hpp: the .cc files that register flags include CLI/CLI.hpp
}  // namespace CLI

namespace paratune::cli {

// The scenario's flags write into the library's request (scenario/scenario_request.h); which
// flags were given is filled in from the command line by ResolveScenario below.
struct ScenarioFlags : ScenarioRequest {
  bool json = false;
};

// How a command uses the scenario: estimate and simulate take one layout (the help shows its
// defaults); plan searches the layout dimensions (a flag pins one, so none shows a default);
// analyze predicts only when a model is given (no default model shown).
enum class ScenarioUse { kOneLayout, kSearch, kPredictIfModel };

// Registers the flags on `cmd`, writing into `f`.
void AddScenarioFlags(CLI::App* cmd, ScenarioFlags& f, ScenarioUse use = ScenarioUse::kOneLayout);

// The request of `f` with the flags `cmd` was given, resolved by the library (defaults: the
// built-in scenario; scenario/resolve_scenario.h). Throws InputError.
ScenarioRequest GivenRequest(const ScenarioFlags& f, const CLI::App& cmd);
Scenario ResolveScenario(const ScenarioFlags& f, const CLI::App& cmd);

}  // namespace paratune::cli
