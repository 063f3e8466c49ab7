// The flags shared by every command that takes a model, a cluster, a training shape and a
// layout (estimate now; plan, simulate and analyze later), and their conversion to library types.
#pragma once

#include <optional>
#include <string>

#include "step/estimate.h"
#include "hardware/hardware_catalog.h"
#include "layout/layout.h"
#include "model/catalog.h"
#include "model/model_spec.h"

namespace CLI {
class App;  // CLI/App.hpp: the .cc files that register flags include CLI/CLI.hpp
}  // namespace CLI

namespace paratune::cli {

struct ScenarioFlags {
  std::string model;
  InlineDims dims;
  bool plain_mlp = false;
  std::string gpu;
  std::string hardware_file;
  std::string fabric;
  int nodes = 0;
  int gpus = 0;
  long long seq = 0;
  long long global_batch = 0;
  std::string precision;
  Layout layout;
  std::string recompute;
  std::string recompute_modules;
  std::string schedule;
  std::string attention_kernel;
  std::string stack, kernels, cuda_graphs, moe_dispatcher;
  bool grouped_gemm = true, fused_permute = false, fused_router = false, fused_grouped_mlp = false;
  std::string cp_comm;
  std::string optimizer_states;
  bool allow_cross_domain_tp = false;
  bool json = false;
};

// How a command uses the scenario: estimate and simulate take one layout (the help shows its
// defaults); plan searches the layout dimensions (a flag pins one, so none shows a default);
// analyze predicts only when a model is given (no default model shown).
enum class ScenarioUse { kOneLayout, kSearch, kPredictIfModel };

// Registers the flags on `cmd`, writing into `f`.
void AddScenarioFlags(CLI::App* cmd, ScenarioFlags& f, ScenarioUse use = ScenarioUse::kOneLayout);

struct Scenario {
  ModelSpec model;
  ClusterSpec cluster;
  Training training;
  Layout layout;
  EstimateOptions options;
};

// Resolves flags (defaults: the built-in scenario) into library inputs. Throws InputError.
Scenario ResolveScenario(const ScenarioFlags& f, const CLI::App& cmd);

}  // namespace paratune::cli
