#include "cost/flops.h"

#include <gtest/gtest.h>

#include "model/catalog.h"
#include "model/test_models.h"

namespace paratune {
namespace {

ModelSpec Gpt(int64_t L, int64_t h, int64_t a, int64_t V) { return GptModel(L, h, a, V); }

// Without the causal discount our counter is exactly Narayanan's 72*B*s*L*h^2*(1 + s/(6h) +
// V/(12Lh)) (SC'21, Sec. 5.1): per layer forward 24*B*s*h^2 GEMMs + 4*B*s^2*h attention.
TEST(Flops, MatchesNarayananClosedForm) {
  for (auto [L, h, a, s] :
       {std::tuple{96, 12288, 96, 2048}, {128, 25600, 160, 2048}, {24, 2304, 24, 2048}, {48, 6144, 64, 4096}}) {
    const ModelSpec m = Gpt(L, h, a, 51200);
    const double B = 1536;
    const double ours = 3 * B * ForwardFlopsPerSequence(m, s, /*causal=*/false);
    EXPECT_NEAR(ours / NarayananFlopsPerIteration(B, s, L, h, 51200, false), 1.0, 1e-12);
  }
}

// GPT-3 175B, B=1536, s=2048: 72*1536*2048*96*12288^2 = 3.2831e18, times
// (1 + 2048/73728 + 51200/14155776) = 1.031395, gives 3.3862e18 FLOPs per iteration.
TEST(Flops, NarayananGpt3Value) {
  const double v = NarayananFlopsPerIteration(1536, 2048, 96, 12288, 51200, false);
  EXPECT_NEAR(v / 3.3862e18, 1.0, 1e-4);
  // With full recompute the 96-coefficient form: 4/3 of the GEMM work, V/16Lh for logits.
  const double r = NarayananFlopsPerIteration(1536, 2048, 96, 12288, 51200, true);
  EXPECT_NEAR(r / v,
              96.0 / 72 * (1 + 2048.0 / 73728 + 51200.0 / (16 * 96 * 12288)) /
                  (1 + 2048.0 / 73728 + 51200.0 / (12 * 96 * 12288)),
              1e-12);
}

// Full recompute adds one forward of every layer: hardware FLOPs equal Narayanan's 96-form for
// non-causal counting; here with the causal discount, check the ratio directly.
TEST(Flops, FullRecomputeAddsOneForward) {
  const ModelSpec m = Gpt(96, 12288, 96, 51200);
  Training t{2048, 1536, Precision::kBf16};
  const double model = ModelFlopsPerStep(m, t);
  const double hw = HardwareFlopsPerStep(m, t, Recompute::kFull);
  const double layers_fwd = t.global_batch * (ForwardFlopsPerSequence(m, 2048) - LogitsForwardFlops(m, 2048));
  EXPECT_DOUBLE_EQ(hw - model, layers_fwd);
  EXPECT_DOUBLE_EQ(HardwareFlopsPerStep(m, t, Recompute::kNone), model);
}

// Causal halving: the attention term is half the full s^2 count (Megatron-LM training.py).
TEST(Flops, CausalHalvesAttention) {
  const ModelSpec m = Gpt(1, 4096, 32, 1000);
  const LayerFlops full = LayerForwardFlops(m, false, 8192, 8192, false);
  const LayerFlops causal = LayerForwardFlops(m, false, 8192, 8192, true);
  EXPECT_DOUBLE_EQ(causal.attention * 2, full.attention);
  EXPECT_DOUBLE_EQ(full.attention, 4.0 * 8192 * 8192 * 4096);
  EXPECT_DOUBLE_EQ(causal.qkv, full.qkv);
}

// Llama-3.1-8B per token (Megatron convention): 6 x (params in GEMMs) + 6*L*h*s (causal
// attention, training) — torchtitan's 6*N + 6*L*H*Dh*s with N excluding the embedding table.
TEST(Flops, Llama8BPerTokenMatchesSixN) {
  const ModelSpec m = LoadModel("llama-3.1-8b");
  const double s = 8192;
  const double gemm_params = 32.0 * (4096.0 * 4096 * 2 + 4096.0 * 1024 * 2 + 3.0 * 4096 * 14336) + 4096.0 * 128256;
  const double expected = 6 * gemm_params + 6 * 32 * 4096 * s;
  EXPECT_NEAR(3 * ForwardFlopsPerSequence(m, s) / s / expected, 1.0, 1e-12);
}

// MoE: router + top-k routed + shared experts (DeepSeek-V3, per token, one MoE layer, forward):
// 2*h*E + 2*3*h*2048*(8 + 1).
TEST(Flops, DeepSeekMoeLayer) {
  const ModelSpec m = LoadModel("deepseek-v3");
  const LayerFlops f = LayerForwardFlops(m, true, 1, 4096);
  EXPECT_DOUBLE_EQ(f.router, 2.0 * 7168 * 256);
  EXPECT_DOUBLE_EQ(f.mlp, 2.0 * 3 * 7168 * 2048 * 9);
  // MLA projections: q_a 7168x1536, q_b 1536x(128*192), kv_a 7168x576, kv_b 512x(128*256).
  EXPECT_DOUBLE_EQ(f.qkv, 2.0 * (7168.0 * 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512.0 * 128 * 256));
  EXPECT_DOUBLE_EQ(f.out_proj, 2.0 * 128 * 128 * 7168);
  // Causal attention: 2 * s * heads * (192 + 128) / 2 per query token.
  EXPECT_DOUBLE_EQ(f.attention, 2.0 * 4096 * 128 * (192 + 128) * 0.5);
}

// GPT-OSS: half its layers slide over 128 keys. Query i of a 4096-token sequence sees min(i+1,
// 128) keys there: on average 128 - 128*127/(2*4096) = 126.015625, against 2048 in the full
// layers; every layer gets the mean, (2048 + 126.015625) / 2 = 1087.0078125.
TEST(Flops, SlidingWindowAttentionCountsTheWindow) {
  const ModelSpec m = LoadModel("gpt-oss-120b");
  EXPECT_DOUBLE_EQ(AttentionKeysPerQuery(m, 4096), (2048 + 126.015625) / 2);
  EXPECT_DOUBLE_EQ(AttentionKeysPerQuery(m, 4096, false), (4096 + 128) / 2.0);
  EXPECT_DOUBLE_EQ(AttentionKeysPerQuery(m, 64), 32);  // window >= sequence: as full attention
  const LayerFlops f = LayerForwardFlops(m, true, 4096, 4096);
  EXPECT_DOUBLE_EQ(f.attention, 2.0 * 4096 * 1087.0078125 * 64 * (64 + 64));
  // A model without sliding layers keeps the causal half.
  EXPECT_DOUBLE_EQ(AttentionKeysPerQuery(LoadModel("llama-3.1-8b"), 4096), 2048);
}

}  // namespace
}  // namespace paratune
