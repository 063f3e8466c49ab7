#include "cost/host_launch.h"

namespace paratune {
namespace {

// Forward kernels of one layer's parts, counted from the code each stack runs (docs/stacks.md,
// "Launches", lists them op by op). Fused: Megatron-Core's TransformerLayer with Transformer
// Engine modules (megatron/core/transformer/transformer_layer.py, attention.py, mlp.py):
// LayerNormLinear (norm + GEMM), fused RoPE on Q and K, the attention kernel and its layout
// copies, the output projection, bias-dropout-add, LayerNormLinear, bias-SwiGLU, the second
// GEMM and bias-dropout-add. Eager: torchtitan's llama3 model.py as written: RMSNorm as
// float/pow/mean/add/rsqrt/mul/type_as/mul, Q, K and V as three GEMMs with their views, RoPE as
// float/view_as_complex/mul/view_as_real/type_as on Q and K, SDPA with its transposes, silu and
// mul. Compiled: Inductor fuses each run of element-wise ops into one kernel.
struct PartKernels {
  double fused, compiled, eager;
};
constexpr PartKernels kAttentionBlock = {8, 8, 30};    // norm, QKV, RoPE, attention, projection, residual
constexpr PartKernels kMlpBlock = {5, 5, 14};          // norm, up GEMM(s), activation, down GEMM, residual
constexpr int kLinearsAttention = 2, kLinearsMlp = 2;  // GEMMs whose inputs an FP8 recipe quantizes

// MoE forward kernels around the experts (Megatron-Core moe_layer.py, router.py,
// token_dispatcher.py MoEAlltoAllTokenDispatcher): the router GEMM and its score, top-k,
// probability and auxiliary-loss ops (one fused kernel pair with --moe-router-fusion), the
// token counts and their all-to-all, the permutation (argsort, gathers; one kernel with
// --moe-permute-fusion), dispatch all-to-all, sort by expert, and the reverse after the experts.
constexpr double kRouterUnfused = 14, kRouterFused = 3;
constexpr double kPermuteUnfused = 16, kPermuteFused = 6;
// DeepEP and HybridEP replace the count exchange, permutation and both all-to-alls by their
// dispatch and combine kernels with their layout preprocessing (deep_ep Buffer.dispatch/combine,
// Megatron-Core fused_a2a.py).
constexpr double kDispatchKernelsFlex = 5;
// The experts of a GPU: Transformer Engine's GroupedLinear issues one cuBLAS GEMM per local
// expert (transformer_engine/pytorch/cpp_extensions/gemm.py general_grouped_gemm, over
// num_gemms on several streams) and, under an FP8 recipe, quantizes each expert's input
// separately; the activation is one kernel over all of them. Megatron-Core's SequentialMLP
// (no --moe-grouped-gemm) runs each expert as its own MLP module: its activation too, and the
// split and concatenation of the tokens around them.
constexpr double kExpertGemms = 2;

}  // namespace

LayerLaunches CountLayerLaunches(const ModelSpec& m, bool moe, const Training& t, const Layout& l) {
  const StackFeatures& f = l.stack;
  auto part = [&](const PartKernels& k) {
    return f.kernels == Kernels::kEager ? k.eager : f.kernels == Kernels::kCompiled ? k.compiled : k.fused;
  };
  const double quantize = IsQuantized(t.precision) ? 1 : 0;
  double statics = part(kAttentionBlock) + quantize * kLinearsAttention;  // capturable by CUDA graphs
  double dynamic = 0;  // between a MoE layer's token-count sync and its combine: not capturable
  if (moe) {
    statics += f.fused_router ? kRouterFused : kRouterUnfused;
    const double local_experts = static_cast<double>(m.experts) / l.ep;
    dynamic += local_experts * kExpertGemms * (1 + quantize) + (f.grouped_gemm ? 1 : local_experts + 2);
    if (f.moe_dispatcher == MoeDispatcher::kAllToAll)
      dynamic += f.fused_permute ? kPermuteFused : kPermuteUnfused;
    else
      dynamic += kDispatchKernelsFlex;
    if (m.shared_experts > 0) statics += part(kMlpBlock) + quantize * kLinearsMlp - 2;  // no norm/residual of its own
    statics += 2;  // the MoE block's norm and residual
  } else {
    statics += part(kMlpBlock) + quantize * kLinearsMlp;
  }
  LayerLaunches out;
  out.gpu_fwd_kernels = statics + dynamic;
  double host = statics + dynamic;
  if (f.cuda_graphs == CudaGraphs::kStatic) host = dynamic + 1;  // one graph launch for the rest
  if (f.cuda_graphs == CudaGraphs::kFull) host = 0;              // the step is one replay
  out.fwd_kernels = host;
  // Autograd runs one backward node per forward op, each a kernel or two (a GEMM's input and
  // weight gradients): twice the forward's kernels.
  out.bwd_kernels = 2 * host;
  return out;
}

}  // namespace paratune
