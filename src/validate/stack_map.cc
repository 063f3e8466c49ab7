#include "validate/stack_map.h"

#include <algorithm>
#include <cstdio>
#include <regex>

#include "layout/stack_catalog.h"

namespace paratune {
namespace {

// Megatron-Bridge's performance recipes of the four models the development rows hold, per NeMo
// container release (Megatron-Bridge tags: 25.11 = v0.2.0, 26.02 = v0.3.0, 26.04 = v0.4.0,
// 26.06 = v0.5.0, 26.08 = v0.6.0; docs/releases/software-versions.md), first match wins.
// Paths are under scripts/performance/configs/ of NVIDIA-NeMo/Megatron-Bridge (v0.6.0:
// src/megatron/bridge/perf_recipes/); docs/stacks.md quotes each line. Every MoE recipe runs
// grouped GEMMs and fused permutation (the model providers: qwen/qwen_provider.py and
// gpt_oss/gpt_oss_provider.py moe_grouped_gemm / moe_permute_fusion = True) and the fused
// router (qwen3_llm_pretrain.py and gpt_oss_llm_pretrain.py moe_router_fusion = True).
struct BridgeRecipe {
  const char* model;  // a substring of the row's model column
  const char* gpus;   // the row's GPU, among these names separated by '|'
  bool mxfp8_only;    // the recipe of MXFP8 runs only
  const char* from;   // first release (YY.MM[.PP]), inclusive
  const char* until;  // last release, inclusive; "" = open
  CudaGraphs graphs;
  MoeDispatcher dispatcher;
  bool overlap_ep;  // moe_a2a_overlap: overlap_moe_expert_parallel_comm + delay_wgrad_compute
  const char* source;
  // The recipe's recompute_modules, run as selective recomputation ("" = none). From v0.3.0
  // (26.02) the perf scripts turn recompute_modules into recompute_granularity = "selective"
  // (scripts/performance/utils/overrides.py:141-143 _set_recompute_overrides); v0.2.0 sets the
  // modules only (utils/helpers.py:178-179) and the GPT-OSS recipe leaves the granularity at
  // Megatron-Core's None, so its 25.11 runs recompute nothing.
  const char* recompute_modules = "";
  // cutedsl_fused_grouped_mlp and fp8_dot_product_attention (the 26.06 FP8-MX recipes;
  // scripts/performance/utils/overrides.py:238-246 at v0.5.0: the TE op fuser and
  // mixed_precision.fp8_dot_product_attention).
  bool fused_mlp_fp8_attention = false;
};
constexpr BridgeRecipe kBridgeRecipes[] = {
    {"Qwen3", "GB300|GB200|B300", true, "26.06", "", CudaGraphs::kFull, MoeDispatcher::kHybridEp, true,
     "v0.5.0 qwen/qwen3_workload_base_configs.py GB300/GB200/B300 FP8_MX: cuda_graph_impl full_iteration, hybridep, "
     "moe_a2a_overlap, cutedsl_fused_grouped_mlp, fp8_dot_product_attention (l.358-365, 388-398, 432-439)",
     "", true},
    {"Qwen3", "GB300|GB200|B300", false, "25.11", "", CudaGraphs::kStatic, MoeDispatcher::kHybridEp, false,
     "v0.2.0 qwen3/workload_base_configs.py GB300/GB200 (v0.3.0 B300): hybridep, TE CUDA graphs on moe_router, "
     "moe_preprocess"},
    {"Qwen3", "B200", false, "26.04", "", CudaGraphs::kStatic, MoeDispatcher::kHybridEp, false,
     "v0.4.0 qwen/qwen3_workload_base_configs.py B200: hybridep, TE CUDA graphs on attn, moe_router, moe_preprocess"},
    {"Qwen3", "B200", false, "25.11", "26.02.99", CudaGraphs::kStatic, MoeDispatcher::kAllToAll, false,
     "v0.2.0 qwen3/workload_base_configs.py B200: alltoall, TE CUDA graphs on moe_router, moe_preprocess"},
    {"Qwen3", "H100-SXM", false, "26.04", "", CudaGraphs::kNone, MoeDispatcher::kHybridEp, false,
     "v0.4.0 qwen/qwen3_workload_base_configs.py H100: EP16, hybridep"},
    {"Qwen3", "H100-SXM", false, "26.02", "26.02.99", CudaGraphs::kNone, MoeDispatcher::kDeepEp, true,
     "v0.3.0 qwen/qwen3_workload_base_configs.py H100: deepep, moe_a2a_overlap"},
    {"Qwen3", "H100-SXM", false, "25.11", "25.11.99", CudaGraphs::kNone, MoeDispatcher::kAllToAll, true,
     "v0.2.0 qwen3/workload_base_configs.py H100 FP8-CS: alltoall, moe_a2a_overlap, no CUDA graphs"},
    {"GPT OSS", "GB300|GB200", true, "26.06", "", CudaGraphs::kFull, MoeDispatcher::kHybridEp, true,
     "v0.5.0 gpt_oss/gpt_oss_workload_base_configs.py GB300/GB200 FP8_MX V2: full_iteration, hybridep, "
     "moe_a2a_overlap, "
     "cutedsl_fused_grouped_mlp, fp8_dot_product_attention (l.201-220)",
     "", true},
    {"GPT OSS", "GB300", false, "25.11", "", CudaGraphs::kStatic, MoeDispatcher::kAllToAll, false,
     "v0.2.0 gpt_oss/workload_base_configs.py GB300: alltoall, TE CUDA graphs on attn, moe_router, moe_preprocess"},
    {"GPT OSS", "GB200", false, "26.04", "", CudaGraphs::kNone, MoeDispatcher::kHybridEp, true,
     "v0.4.0 gpt_oss/gpt_oss_workload_base_configs.py GB200 V2: hybridep, moe_a2a_overlap, recompute layernorm, "
     "moe_act",
     "layernorm,moe_act"},
    {"GPT OSS", "B300", false, "26.04", "", CudaGraphs::kStatic, MoeDispatcher::kHybridEp, false,
     "v0.4.0 gpt_oss/gpt_oss_workload_base_configs.py B300 V2: EP8, hybridep (TE CUDA graphs as v0.3.0)"},
    {"GPT OSS", "B300", false, "26.02", "", CudaGraphs::kStatic, MoeDispatcher::kAllToAll, false,
     "v0.3.0 gpt_oss/gpt_oss_workload_base_configs.py B300: TE CUDA graphs on attn, moe_router, moe_preprocess"},
    {"GPT OSS", "B200", false, "26.04", "", CudaGraphs::kNone, MoeDispatcher::kHybridEp, false,
     "v0.4.0 gpt_oss/gpt_oss_workload_base_configs.py B200 V2: EP8, hybridep, recompute layernorm, moe_act",
     "layernorm,moe_act"},
    {"GPT OSS", "GB200|B200|H100-SXM", false, "26.02", "", CudaGraphs::kNone, MoeDispatcher::kAllToAll, false,
     "v0.3.0 gpt_oss/gpt_oss_workload_base_configs.py GB200/B200/H100 V1: alltoall, no CUDA graphs, recompute "
     "layernorm, moe_act",
     "layernorm,moe_act"},
    {"GPT OSS", "GB200|B200|H100-SXM", false, "25.11", "", CudaGraphs::kNone, MoeDispatcher::kAllToAll, false,
     "v0.2.0 gpt_oss/workload_base_configs.py GB200/B200/H100: alltoall, no CUDA graphs (recompute_modules without "
     "a granularity: none)"},
    {"LLAMA3_8B", "GB300|GB200|B200", false, "25.11", "", CudaGraphs::kFull, MoeDispatcher::kAllToAll, false,
     "v0.2.0 llama3/workload_base_configs.py 8B on GB300/GB200/B200: cuda_graph_impl local, scope full_iteration"},
    {"LLAMA3_70B", "GB300", false, "25.11", "", CudaGraphs::kNone, MoeDispatcher::kAllToAll, false,
     "v0.2.0 llama3/workload_base_configs.py 70B on GB300 (full_iteration graphs only with NVFP4, below)"},
};

// Llama 3 70B's Megatron-FSDP recipes on NVL72 racks offload the activations of their first
// layers to the Grace host (cpu_offloading_num_layers), the same from v0.2.0 (25.11,
// scripts/performance/configs/llama3/workload_base_configs.py LLAMA3_70B_GB300/GB200_*_BASE_CONFIG)
// to v0.4.1 (llama/llama3_workload_base_configs.py *_V1/V2): GB300 BF16 30, FP8-CS 20; GB200
// BF16 20, FP8-CS 40.
struct BridgeOffload {
  const char* gpu;
  bool fp8;
  int layers;
};
constexpr BridgeOffload kLlama70bFsdpOffload[] = {
    {"GB300", false, 30}, {"GB300", true, 20}, {"GB200", false, 20}, {"GB200", true, 40}};

// Whether `gpu` is one of the '|'-separated names of `list`.
bool InList(const std::string& gpu, const std::string& list) {
  return ("|" + list + "|").find("|" + gpu + "|") != std::string::npos;
}

void MapBridge(const std::string& section, PublishedRun& r) {
  static const std::regex container(R"((\d\d\.\d\d(?:\.\d\d)?) NeMo container)");
  std::smatch m;
  StackSpec spec{Framework::kMegatronBridge, "", false};
  if (std::regex_search(section, m, container)) spec.release = m[1].str();
  ApplyStack(spec, r.layout);
  StackFeatures& f = r.layout.stack;
  f.fused_permute = f.fused_router = f.grouped_gemm = true;
  f.cuda_graphs = CudaGraphs::kNone;
  f.moe_dispatcher = MoeDispatcher::kAllToAll;
  const bool mxfp8 = r.precision_raw.find("mxfp8") != std::string::npos;
  std::string used = "Megatron-Bridge " + (spec.release.empty() ? std::string("(release not stated)") : spec.release);
  for (const BridgeRecipe& b : kBridgeRecipes) {
    if (r.model_name.find(b.model) == std::string::npos || !InList(r.gpu_name, b.gpus)) continue;
    if (b.mxfp8_only && !mxfp8) continue;
    if (ReleaseBefore(spec.release, b.from) || (*b.until && ReleaseBefore(b.until, spec.release))) continue;
    f.cuda_graphs = b.graphs;
    f.moe_dispatcher = b.dispatcher;
    r.layout.overlap_ep_comm = b.overlap_ep;
    if (b.fused_mlp_fp8_attention) f.fused_grouped_mlp = r.layout.fp8_attention = true;
    if (*b.recompute_modules && r.layout.recompute == Recompute::kNone) {
      r.layout.recompute = Recompute::kSelective;
      r.layout.recompute_modules = ParseRecomputeModules(b.recompute_modules, "kBridgeRecipes");
    }
    used += std::string(" recipe (") + b.source + ")";
    break;
  }
  const bool fsdp = r.sharding_raw.find("Megatron-FSDP") != std::string::npos;
  if (r.model_name.find("LLAMA3_70B") != std::string::npos && fsdp && r.layout.pp == 1 &&
      r.layout.recompute == Recompute::kNone) {
    const bool fp8 = r.precision_raw.rfind("fp8", 0) == 0;
    for (const BridgeOffload& o : kLlama70bFsdpOffload)
      if (r.gpu_name == o.gpu && (fp8 || r.precision_raw == "bf16") && o.fp8 == fp8) {
        r.layout.offload_layers = o.layers;
        used += ", activations of " + std::to_string(o.layers) +
                " layers offloaded to the host (cpu_offloading_num_layers)";
      }
  }
  // NVFP4 runs of Llama 3 70B replay the full iteration (v0.2.0 llama3/workload_base_configs.py
  // 70B GB300 NVFP4: cuda_graph_impl local, full_iteration).
  if (r.model_name.find("LLAMA3_70B") != std::string::npos && r.precision_raw.find("nvfp4") != std::string::npos)
    f.cuda_graphs = CudaGraphs::kFull;
  // Gradients reduced in BF16 (the perf configs: grad_reduce_in_fp32 = False, e.g. v0.2.0
  // qwen3/qwen3_llm_pretrain.py:44-45) and the dense recipes' TP overlap through userbuffers
  // (llama3_llm_pretrain.py:58-78; off for NVFP4).
  r.layout.grad_reduce_in_fp32 = false;
  if (r.model.experts <= 1 && r.layout.sequence_parallel() && r.precision_raw.find("nvfp4") == std::string::npos)
    r.layout.overlap_tp_comm = true;
  r.assumptions.push_back(used + ": CUDA graphs " + kCudaGraphsNames.Name(f.cuda_graphs) + ", MoE dispatcher " +
                          kMoeDispatcherNames.Name(f.moe_dispatcher) +
                          (r.layout.overlap_ep_comm ? ", EP all-to-all overlapped" : "") +
                          (f.fused_grouped_mlp ? ", fused grouped MLP, FP8 attention" : "") +
                          ", BF16 gradient reduction, fused cross-entropy");
}

}  // namespace

void MapStack(const std::string& section, const std::string& notes, PublishedRun& r) {
  const std::string& s = r.source;
  if (s == "Megatron-Bridge-perf-summary") return MapBridge(section, r);
  if (s == "torchtitan" || s == "torchao-mx-formats") {
    // torchtitan's benchmark tables name torch.compile per row ("FSDP+torch.compile"), and
    // Async TP ("2D + AsyncTP": enable_async_tensor_parallel, which needs compile).
    const bool compiled = notes.find("torch.compile") != std::string::npos;
    ApplyStack({Framework::kTorchtitan, "", compiled}, r.layout);
    if (notes.find("AsyncTP") != std::string::npos) r.layout.overlap_tp_comm = true;
    r.assumptions.push_back(std::string("torchtitan: ") + (compiled ? "torch.compile per block" : "eager kernels") +
                            ", SDPA attention" + (r.layout.overlap_tp_comm ? ", async TP" : ""));
    return;
  }
  if (s == "MosaicML-llm-foundry") {
    r.layout.stack.framework = Framework::kLlmFoundry;
    return;
  }
  if (s == "NeMo-perf-summary" || s == "NVIDIA-dgxc-benchmarking") {
    // NeMo 1 and 2 (24.07 to 25.07): Megatron-Core under NeMo; their recipe switches are mapped
    // per recipe in published_runs.cc; their MoE runs use the alltoall dispatcher without the
    // later fusions or CUDA graphs.
    r.layout.stack.framework = Framework::kMegatronBridge;
    return;
  }
  r.layout.stack.framework = Framework::kMegatronLm;
}

}  // namespace paratune
