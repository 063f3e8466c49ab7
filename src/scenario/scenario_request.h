// ScenarioRequest: a scenario as the user gave it, by the CLI's flags or the Python module's
// keyword arguments: the values, and which options were given, named by their CLI flag so that
// every message (and every caller) names an option the same way. ResolveScenario
// (scenario/resolve_scenario.h) turns it into library inputs, taking the built-in default
// scenario (scenario/default_scenario.h) for what was not given.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "layout/layout.h"
#include "model/catalog.h"
#include "scenario/default_scenario.h"

namespace paratune {

struct ScenarioRequest {
  std::string model;         // catalog id or config.json path; "" = the default model
  std::string model_config;  // a config.json's text (the Python module's Model(dict)), when given
  InlineDims dims;           // an inline model, when --layers, --hidden or --heads is given
  bool plain_mlp = false;
  std::string gpu;            // "" = the default GPU
  std::string hardware_file;  // TOML merged into the built-in hardware catalog
  std::string fabric;
  int nodes = 0;               // used when --nodes is given (else the default nodes, or --gpus)
  int gpus = 0;                // used when --gpus is given
  long long seq = 0;           // used when --seq is given
  long long global_batch = 0;  // used when --global-batch is given
  std::string precision;
  Layout layout = DefaultLayout();  // sizes and switches; the strings below are parsed into it
  std::string recompute;
  std::string recompute_modules;
  std::string schedule;
  std::string attention_kernel;
  std::string stack, kernels, cuda_graphs, moe_dispatcher;
  bool grouped_gemm = true, fused_permute = false, fused_router = false, fused_grouped_mlp = false;
  std::string cp_comm;
  std::string optimizer_states;
  bool allow_cross_domain_tp = false;

  // The options given, by their CLI flag ("--gpu", "--no-sp"; both names of a two-way switch).
  std::set<std::string, std::less<>> given;
  bool Given(std::string_view flag) const { return given.contains(flag); }
};

}  // namespace paratune
