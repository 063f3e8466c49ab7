#include "cost/layer_cost.h"

#include <gtest/gtest.h>

#include "cost/compute.h"
#include "hardware/hardware_catalog.h"
#include "model/catalog.h"

namespace paratune {
namespace {

// ep * (1 - C(E - E/ep, k) / C(E, k)), by hand: Qwen3-30B-A3B's 128 experts, top 8, over EP 8
// (16 per rank): 1 - C(112,8)/C(128,8) = 0.66742 of the ranks, 5.3394 ranks per token; GPT-OSS's
// top 4: 3.3425; one expert per rank: every copy on its own rank (8).
TEST(LayerCost, DistinctRanksPerTokenByHand) {
  EXPECT_NEAR(DistinctRanksPerToken(128, 8, 8), 5.339357, 1e-6);
  EXPECT_NEAR(DistinctRanksPerToken(128, 4, 8), 3.342467, 1e-6);
  EXPECT_DOUBLE_EQ(DistinctRanksPerToken(128, 8, 128), 8);
  EXPECT_DOUBLE_EQ(DistinctRanksPerToken(128, 8, 1), 8);   // no EP: no all-to-all to shrink
  EXPECT_DOUBLE_EQ(DistinctRanksPerToken(100, 8, 64), 8);  // experts do not divide: no claim
}

// DeepEP and HybridEP send a token once per destination rank: the all-to-all moves
// 5.3394 / 8 of the alltoall dispatcher's bytes for Qwen3-30B-A3B on EP 8.
TEST(LayerCost, FlexDispatchersSendATokenOncePerRank) {
  const ModelSpec m = LoadModel("qwen3-30b-a3b");
  const ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("B200", 8);
  const Training t{4096, 512, Precision::kBf16};
  Layout l;
  l.ep = 8;
  const LayerCost a2a = ComputeLayerCost(m, true, c, t, l);
  for (MoeDispatcher d : {MoeDispatcher::kDeepEp, MoeDispatcher::kHybridEp}) {
    l.stack.moe_dispatcher = d;
    const LayerCost flex = ComputeLayerCost(m, true, c, t, l);
    EXPECT_NEAR(flex.ep_bytes / a2a.ep_bytes, DistinctRanksPerToken(128, 8, 8) / 8, 1e-12);
    EXPECT_LT(flex.ep_call_s, a2a.ep_call_s);
  }
  EXPECT_DOUBLE_EQ(a2a.ep_bytes, 4096.0 * 8 * 2048 * 2);  // every routed copy, 2 bytes per value
}

// The dispatchers' permutation bytes per routed copy, by hand from token_dispatcher.py:
// Qwen3-30B-A3B (h 2048, top 8) on EP 8 (16 local experts): alltoall 4h + 8h + 2h + 2h/8 =
// 14.25h; DeepEP/HybridEP 6h + 2h * 5.3394/8; Mixtral-8x7B (h 4096, top 2) on EP 8 (one
// local expert, no sort): 4h + 2h + 2h/2 = 7h.
TEST(LayerCost, PermutationBytesFollowTheDispatcher) {
  const ModelSpec qwen = LoadModel("qwen3-30b-a3b");
  Layout l;
  l.ep = 8;
  EXPECT_DOUBLE_EQ(PermuteBytesPerCopy(qwen, l), 14.25 * 2048);
  l.stack.moe_dispatcher = MoeDispatcher::kHybridEp;
  EXPECT_NEAR(PermuteBytesPerCopy(qwen, l), (6 + 2 * 5.339357 / 8) * 2048, 1e-3);
  l.stack.moe_dispatcher = MoeDispatcher::kAllToAll;
  EXPECT_DOUBLE_EQ(PermuteBytesPerCopy(LoadModel("mixtral-8x7b"), l), 7.0 * 4096);
}

// The CuTe DSL fused grouped MLP (26.06's FP8-MX recipes) runs the experts' SwiGLU inside FC1's
// kernel and writes FC2's input quantized: per routed copy the activation pass (6 bytes per
// FFN value: the gated input read, the output written) and FC2's input cast (4 bytes per value)
// go, 10 x 768 bytes for Qwen3-30B-A3B; the forward is that much HBM time shorter.
TEST(LayerCost, FusedGroupedMlpDropsTheActivationAndCastPasses) {
  const ModelSpec m = LoadModel("qwen3-30b-a3b");
  const ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("B200", 8);
  const Training t{4096, 512, Precision::kFp8};
  Layout l;
  l.ep = 8;
  const LayerCost plain = ComputeLayerCost(m, true, c, t, l);
  l.stack.fused_grouped_mlp = true;
  const LayerCost fused = ComputeLayerCost(m, true, c, t, l);
  const GpuSpec& g = c.gpu;
  const double bytes = 4096.0 * 8 * 768 * 10;
  EXPECT_NEAR(plain.fwd_compute_s - fused.fwd_compute_s, bytes / (g.hbm_bytes_per_s * g.calibration.hbm), 1e-12);
  EXPECT_NEAR(plain.bwd_compute_s - fused.bwd_compute_s, 2 * bytes / (g.hbm_bytes_per_s * g.calibration.hbm), 1e-12);
}

// FP8 attention (Transformer Engine fp8_dot_product_attention) runs the matrix multiplies at the
// FP8 rate under an FP8 recipe; in BF16 training the switch changes nothing.
TEST(LayerCost, Fp8AttentionOnlyUnderAnFp8Recipe) {
  const ModelSpec m = LoadModel("llama-3.1-8b");
  const ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("H100-SXM", 8);
  Layout l;
  for (Precision p : {Precision::kBf16, Precision::kFp8}) {
    const Training t{8192, 64, p};
    l.fp8_attention = false;
    const LayerCost bf16 = ComputeLayerCost(m, false, c, t, l);
    l.fp8_attention = true;
    const LayerCost fp8 = ComputeLayerCost(m, false, c, t, l);
    if (p == Precision::kBf16) {
      EXPECT_EQ(fp8.attention_fwd_s, bf16.attention_fwd_s);
    } else {
      // Hopper adds no exponential term: the MMA time halves (1979 vs 989 dense TFLOP/s).
      const double r = c.gpu.bf16_flops / c.gpu.peak_flops(Precision::kFp8);
      EXPECT_NEAR(fp8.attention_fwd_s - kKernelOverheadS, r * (bf16.attention_fwd_s - kKernelOverheadS), 1e-12);
    }
  }
}

// torchtitan's selective recomputation is its per-op policy: Llama 3.1 8B's block reruns wk,
// wo and w3 (the K share 8/48 of the fused QKV GEMM, the output projection, half the up
// projection) and all its element-wise work, not the attention; Megatron's reruns the attention.
TEST(LayerCost, TorchtitanSelectiveRecomputationRerunsEverySecondMatmul) {
  const ModelSpec m = LoadModel("llama-3.1-8b");
  const ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("H100-SXM", 8);
  const Training t{8192, 64, Precision::kBf16};
  Layout l;
  l.recompute = Recompute::kSelective;
  const LayerCost megatron = ComputeLayerCost(m, false, c, t, l);
  EXPECT_DOUBLE_EQ(megatron.recompute_fwd_s, megatron.attention_fwd_s);
  l.stack.framework = Framework::kTorchtitan;
  const LayerCost titan = ComputeLayerCost(m, false, c, t, l);
  const GpuSpec& g = c.gpu;
  const double T = 8192, h = 4096;
  const double elementwise = titan.fwd_compute_s - titan.gemm_fwd_s - titan.attention_fwd_s;
  const double want = GemmTime(g, Precision::kBf16, T, 6144, h) * 8 / 48 + GemmTime(g, Precision::kBf16, T, h, h) +
                      GemmTime(g, Precision::kBf16, T, 2 * 14336, h) / 2 + elementwise;
  EXPECT_NEAR(titan.recompute_fwd_s, want, 1e-12);
  EXPECT_GT(elementwise, 0);
}

}  // namespace
}  // namespace paratune
