// StackFeatures: the features of the software stack that runs a layout (the framework's kernels,
// how it launches them, how it moves MoE tokens) which the cost model prices, each one term with
// its source (docs/stacks.md). The stacks themselves, with their defaults per framework and
// release, are listed once in layout/stack_catalog.h.
#pragma once

#include "util/enum_names.h"

namespace paratune {

// The frameworks a stack is built on; later entries are accepted aliases.
enum class Framework { kMegatronLm, kMegatronBridge, kTorchtitan, kDeepSpeed, kLlmFoundry };
inline constexpr EnumNames<Framework, 10> kFrameworkNames{{{{Framework::kMegatronLm, "megatron-lm"},
                                                            {Framework::kMegatronBridge, "megatron-bridge"},
                                                            {Framework::kTorchtitan, "torchtitan"},
                                                            {Framework::kDeepSpeed, "deepspeed"},
                                                            {Framework::kLlmFoundry, "llm-foundry"},
                                                            {Framework::kMegatronLm, "megatron"},
                                                            {Framework::kMegatronLm, "megatron-core"},
                                                            {Framework::kMegatronLm, "mcore"},
                                                            {Framework::kMegatronBridge, "nemo"},
                                                            {Framework::kLlmFoundry, "composer"}}},
                                                          5};
inline const char* FrameworkName(Framework f) { return kFrameworkNames.Name(f); }

// How the element-wise work of a layer (norms, rotary embedding, the gated activation) runs.
// kFused: one kernel each (Transformer Engine's LayerNormLinear and fused RoPE, Megatron's
// bias-SwiGLU fusion, or an nn.LayerNorm/GELU that is one kernel in eager PyTorch too);
// kCompiled: fused by torch.compile (Inductor), the same bytes as kFused; kEager: one kernel per
// PyTorch operator of the model code as written (torchtitan's RMSNorm in FP32, complex-number
// RoPE, silu(x1) * x3), each reading and writing its tensor (docs/stacks.md, "Element-wise").
enum class Kernels { kFused, kCompiled, kEager };
inline constexpr EnumNames<Kernels, 3> kKernelsNames{
    {{{Kernels::kFused, "fused"}, {Kernels::kCompiled, "compiled"}, {Kernels::kEager, "eager"}}}, 3};

// CUDA graphs: kNone, every kernel launched from Python; kStatic, the static parts of each layer
// captured (Megatron-Core --cuda-graph-impl transformer_engine with scope attn, moe_router,
// moe_preprocess: the MoE experts between the token-count sync and the combine stay eager);
// kFull, the whole forward and backward replayed (--cuda-graph-scope full_iteration, or
// static-shape MoE with padded expert inputs).
enum class CudaGraphs { kNone, kStatic, kFull };
inline constexpr EnumNames<CudaGraphs, 3> kCudaGraphsNames{
    {{{CudaGraphs::kNone, "none"}, {CudaGraphs::kStatic, "static"}, {CudaGraphs::kFull, "full"}}}, 3};

// How MoE tokens reach their experts: NCCL all-to-all (Megatron-Core's alltoall dispatcher,
// torchtitan), DeepEP's kernels (Megatron-Core flex dispatcher, backend deepep), or HybridEP
// (flex dispatcher, backend hybridep: NVLink-domain-aware dispatch for NVL72 racks).
enum class MoeDispatcher { kAllToAll, kDeepEp, kHybridEp };
inline constexpr EnumNames<MoeDispatcher, 3> kMoeDispatcherNames{{{{MoeDispatcher::kAllToAll, "alltoall"},
                                                                   {MoeDispatcher::kDeepEp, "deepep"},
                                                                   {MoeDispatcher::kHybridEp, "hybridep"}}},
                                                                 3};

struct StackFeatures {
  Framework framework = Framework::kMegatronLm;
  Kernels kernels = Kernels::kFused;
  CudaGraphs cuda_graphs = CudaGraphs::kNone;
  MoeDispatcher moe_dispatcher = MoeDispatcher::kAllToAll;
  // Experts of a GPU in one grouped GEMM (--moe-grouped-gemm, TE GroupedLinear) rather than one
  // GEMM and one launch per expert (Megatron-Core SequentialMLP).
  bool grouped_gemm = true;
  // Token permutation and unpermutation in one fused kernel each (--moe-permute-fusion, TE
  // moe_permute/moe_unpermute) rather than PyTorch's sort, gather and scatter.
  bool fused_permute = false;
  // Router softmax/top-k and the auxiliary loss fused (--moe-router-fusion, TE fused router).
  bool fused_router = false;
  // The experts' FC1 grouped GEMM with its SwiGLU and the FC2 input's quantization in one
  // kernel (Transformer Engine's op fuser with the CuTe DSL fused grouped MLP on Blackwell,
  // NVTE_CUTEDSL_FUSED_GROUPED_MLP=1, under an MXFP8/NVFP4 recipe; Megatron-Core
  // use_transformer_engine_op_fuser): no separate activation or FC2-input cast pass.
  bool fused_grouped_mlp = false;
};

// The fields of StackFeatures with their JSON names, for every writer and reader (the one list):
// v(key, member) or v(key, member, names) for enums.
template <class S, class V>
void StackFields(S& s, V& v) {
  v("framework", s.framework, kFrameworkNames);
  v("kernels", s.kernels, kKernelsNames);
  v("cuda_graphs", s.cuda_graphs, kCudaGraphsNames);
  v("moe_dispatcher", s.moe_dispatcher, kMoeDispatcherNames);
  v("grouped_gemm", s.grouped_gemm);
  v("fused_permute", s.fused_permute);
  v("fused_router", s.fused_router);
  v("fused_grouped_mlp", s.fused_grouped_mlp);
}

}  // namespace paratune
