#include "scenario/resolve_scenario.h"

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "hardware/hardware_catalog.h"
#include "model/hf_config.h"
#include "layout/stack_catalog.h"
#include "util/error.h"
#include "util/file.h"

namespace paratune {
namespace {

// A config.json given as text (the Python module's Model(dict)), named by its `_name_or_path`
// (as Hugging Face writes it), else "config".
ModelSpec ModelFromConfigText(const std::string& text) {
  std::string name = "config";
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.contains("_name_or_path") && j["_name_or_path"].is_string() &&
      !j["_name_or_path"].get<std::string>().empty())
    name = j["_name_or_path"].get<std::string>();
  return ParseHfConfig(text, "--model-config", name);
}

ModelSpec ResolveModel(const ScenarioRequest& r) {
  const bool inline_model = r.Given("--layers") || r.Given("--hidden") || r.Given("--heads");
  if (r.Given("--model-config")) {
    if (r.Given("--model") || inline_model)
      throw InputError(
          "--model-config (a config.json given as a dict) excludes --model and inline dimensions (--layers ...)");
    return ModelFromConfigText(r.model_config);
  }
  if (!inline_model) {
    if (r.Given("--model") && r.model.empty())
      throw InputError("--model: empty model name (a catalog id or a config.json path)");
    return LoadModel(r.model.empty() ? kDefaultModel : r.model);
  }
  if (!r.model.empty()) throw InputError("--model and inline dimensions (--layers ...) exclude each other");
  InlineDims d = r.dims;
  d.gated_mlp = !r.plain_mlp;
  for (auto [flag, v] : {std::pair{"--layers", d.layers},
                         {"--hidden", d.hidden},
                         {"--ffn", d.ffn},
                         {"--heads", d.heads},
                         {"--vocab", d.vocab}})
    if (v <= 0) throw InputError(std::string(flag) + " must be a positive integer for an inline model");
  return ModelFromDims(d);
}

// Runs `lookup`, prefixing its InputError with the flag whose value it looked up.
template <typename F>
void Flagged(const char* flag, const F& lookup) {
  try {
    lookup();
  } catch (const InputError& e) {
    throw InputError(std::string(flag) + ": " + e.what());
  }
}

ClusterSpec ResolveCluster(const ScenarioRequest& r) {
  HardwareCatalog hw = HardwareCatalog::BuiltIn();
  if (!r.hardware_file.empty()) hw.Merge(ReadFile(r.hardware_file), r.hardware_file);
  if (r.Given("--gpu") && r.gpu.empty()) throw InputError("--gpu: empty GPU name (paratune gpus lists them)");
  if (r.Given("--fabric") && r.fabric.empty()) throw InputError("--fabric: empty fabric name");
  const std::string gpu = r.gpu.empty() ? kDefaultGpu : r.gpu;
  ClusterSpec cluster;
  Flagged("--gpu", [&] { hw.Find(gpu); });
  Flagged("--fabric", [&] { cluster = hw.Cluster(gpu, 0, r.fabric); });
  if (r.Given("--nodes") && r.Given("--gpus")) throw InputError("give --nodes or --gpus, not both");
  if (r.Given("--gpus")) {
    if (r.gpus <= 0) throw InputError("--gpus must be positive, got " + std::to_string(r.gpus));
    cluster.gpus = r.gpus;
  } else {
    const int nodes = r.Given("--nodes") ? r.nodes : kDefaultNodes;
    if (nodes <= 0) throw InputError("--nodes must be positive, got " + std::to_string(nodes));
    cluster.gpus = nodes * cluster.fabric.gpus_per_node;
  }
  return cluster;
}

// The stack (--stack) and its feature flags: the stack's defaults first, then every flag given.
// Switches the stack decides keep the value of a flag given for them.
void ApplyStackOptions(const ScenarioRequest& r, Layout& l) {
  if (!r.stack.empty()) {
    Layout stacked = l;
    ApplyStack(ParseStack(r.stack, "--stack"), stacked);
    l.stack = stacked.stack;
    l.attention_kernel = stacked.attention_kernel;
    if (!r.Given("--fused-cross-entropy")) l.fused_cross_entropy = stacked.fused_cross_entropy;
    if (!r.Given("--fp32-shards")) l.fp32_shards = stacked.fp32_shards;
    if (!r.Given("--zero3-per-tensor")) l.zero3_per_tensor = stacked.zero3_per_tensor;
  }
  StackFeatures& st = l.stack;
  if (!r.kernels.empty()) st.kernels = kKernelsNames.Parse(r.kernels, "--kernels", "kernel mode");
  if (!r.cuda_graphs.empty())
    st.cuda_graphs = kCudaGraphsNames.Parse(r.cuda_graphs, "--cuda-graphs", "CUDA graph mode");
  if (!r.moe_dispatcher.empty())
    st.moe_dispatcher = kMoeDispatcherNames.Parse(r.moe_dispatcher, "--moe-dispatcher", "MoE dispatcher");
  if (r.Given("--grouped-gemm") || r.Given("--no-grouped-gemm")) st.grouped_gemm = r.grouped_gemm;
  if (r.Given("--fused-permute") || r.Given("--no-fused-permute")) st.fused_permute = r.fused_permute;
  if (r.Given("--fused-router") || r.Given("--no-fused-router")) st.fused_router = r.fused_router;
  if (r.Given("--fused-grouped-mlp") || r.Given("--no-fused-grouped-mlp")) st.fused_grouped_mlp = r.fused_grouped_mlp;
}

Layout ResolveLayout(const ScenarioRequest& r) {
  Layout l = r.layout;
  if (!r.recompute.empty()) l.recompute = ParseRecompute(r.recompute, "--recompute");
  if (!r.recompute_modules.empty()) {
    if (!r.recompute.empty() && l.recompute != Recompute::kSelective)
      throw InputError("--recompute-modules goes with --recompute selective, not " + r.recompute);
    l.recompute = Recompute::kSelective;
    l.recompute_modules = ParseRecomputeModules(r.recompute_modules, "--recompute-modules");
  }
  if (!r.schedule.empty()) l.schedule = ParseSchedule(r.schedule, "--schedule");
  if (!r.optimizer_states.empty()) l.optimizer_states = ParseOptimizerStates(r.optimizer_states, "--optimizer-states");
  if (!r.cp_comm.empty()) l.cp_comm = ParseCpComm(r.cp_comm, "--cp-comm");
  ApplyStackOptions(r, l);
  if (!r.attention_kernel.empty()) l.attention_kernel = ParseAttentionKernel(r.attention_kernel, "--attention-kernel");
  return l;
}

}  // namespace

Scenario ResolveScenario(const ScenarioRequest& r) {
  Scenario s;
  s.model = ResolveModel(r);
  s.cluster = ResolveCluster(r);
  s.training = DefaultTraining();
  if (r.Given("--seq")) s.training.seq = r.seq;
  if (r.Given("--global-batch")) s.training.global_batch = r.global_batch;
  if (!r.precision.empty()) s.training.precision = ParsePrecision(r.precision, "--precision");
  s.layout = ResolveLayout(r);
  s.rules.allow_cross_domain_tp = r.allow_cross_domain_tp;
  return s;
}

}  // namespace paratune
