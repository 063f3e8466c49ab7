#include "cost/memory.h"

#include <gtest/gtest.h>

#include "cost/activations.h"
#include "model/test_models.h"

namespace paratune {
namespace {

// Rajbhandari et al. 2020 (ZeRO), Sec. 3.1: mixed-precision Adam keeps 16 bytes per parameter;
// Sec. 5 / Fig. 1: with Psi = 7.5B and N_d = 64, baseline 120 GB, P_os 31.4 GB, P_os+g 16.6 GB,
// P_os+g+p 1.9 GB.
TEST(ModelStates, ZeroPaperFigure1) {
  const StateBytesPerParam b = StateBytesPerParam::ZeroPaper();
  const double psi = 7.5e9;
  EXPECT_DOUBLE_EQ(ModelStates(1, 0, 1, b).total(), 16);
  EXPECT_DOUBLE_EQ(ModelStates(psi, 0, 64, b).total(), 120e9);
  EXPECT_NEAR(ModelStates(psi, 1, 64, b).total() / 1e9, 31.4, 0.05);
  EXPECT_NEAR(ModelStates(psi, 2, 64, b).total() / 1e9, 16.6, 0.05);
  EXPECT_NEAR(ModelStates(psi, 3, 64, b).total() / 1e9, 1.9, 0.05);
  // The formulas themselves: 4Psi + 12Psi/N, 2Psi + 14Psi/N, 16Psi/N.
  EXPECT_DOUBLE_EQ(ModelStates(psi, 1, 64, b).total(), 4 * psi + 12 * psi / 64);
  EXPECT_DOUBLE_EQ(ModelStates(psi, 2, 64, b).total(), 2 * psi + 14 * psi / 64);
  EXPECT_DOUBLE_EQ(ModelStates(psi, 3, 64, b).total(), 16 * psi / 64);
}

// Megatron-LM theoretical_memory_usage.py: 18 bytes/param, distributed optimizer 6 + 12/DP.
TEST(ModelStates, MegatronDefaults) {
  const StateBytesPerParam b;
  EXPECT_DOUBLE_EQ(ModelStates(1, 0, 8, b).total(), 18);
  EXPECT_DOUBLE_EQ(ModelStates(1, 1, 8, b).total(), 6 + 12.0 / 8);
}

// GPT layer as in Korthikanti et al. 2022: MHA, 4h GELU, dropout, LayerNorm.
ModelSpec GptLayer(int64_t h, int64_t a) { return GptModel(1, h, a, 51200); }

// Korthikanti et al. 2022 Table 2, reproduced tensor by tensor (no FlashAttention, 16-bit).
TEST(Activations, KorthikantiTable2) {
  const double s = 2048, b = 1, h = 12288, a = 96, t = 8;
  const ModelSpec m = GptLayer(12288, 96);
  ActivationOptions o;
  o.flash_attention = false;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, false, b, s, o), s * b * h * (34 + 5 * a * s / h));
  EXPECT_DOUBLE_EQ(KorthikantiActivationBytes(s, b, h, a, 1, KorthikantiCase::kNone), s * b * h * (34 + 5 * a * s / h));
  o.tp = 8;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, false, b, s, o), s * b * h * (10 + 24 / t + 5 * a * s / (h * t)));
  o.sp = true;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, false, b, s, o), s * b * h / t * (34 + 5 * a * s / h));
  o.recompute = Recompute::kSelective;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, false, b, s, o), s * b * h / t * 34);
  o.sp = false;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, false, b, s, o), s * b * h * (10 + 24 / t));
  o.recompute = Recompute::kFull;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, false, b, s, o), 2 * s * b * h);
  // The closed forms agree with the generic counter for each case.
  o = ActivationOptions{};
  o.flash_attention = false;
  o.tp = 8;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, false, b, s, o),
                   KorthikantiActivationBytes(s, b, h, a, t, KorthikantiCase::kTp));
}

// Korthikanti Table 4 / Sec. 5: GPT-3 175B (s=2048, b=1, t=8): full activations per layer with
// TP only are sbh(10+24/t+5as/ht) = sbh(13 + 10); SP+selective cuts it to 34sbh/t = 4.25sbh:
// 23/4.25 = 5.41x, the "5x" of the paper's abstract.
TEST(Activations, SelectiveWithSpSavesFiveXOnGpt3) {
  const double ratio = KorthikantiActivationBytes(2048, 1, 12288, 96, 8, KorthikantiCase::kTp) /
                       KorthikantiActivationBytes(2048, 1, 12288, 96, 8, KorthikantiCase::kTpSpSelective);
  EXPECT_DOUBLE_EQ(ratio, 23.0 / 4.25);
}

// FlashAttention never stores the scores: same as selective recompute.
TEST(Activations, FlashAttentionDropsScores) {
  const ModelSpec m = GptLayer(4096, 32);
  ActivationOptions flash;
  ActivationOptions selective;
  selective.flash_attention = false;
  selective.recompute = Recompute::kSelective;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, false, 2, 4096, flash), LayerActivationBytes(m, false, 2, 4096, selective));
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, false, 2, 4096, flash), 34.0 * 4096 * 2 * 4096);
}

// GQA + SwiGLU, no dropout, RMSNorm (Llama-3-70B shape), per token per layer, bf16:
// replicated 2*2h (norm inputs) + 2h (QKV input) + 2h (MLP input); sharded: Q 2h, K+V
// 2*2*1024, attention output 2h, fused gate/up 4*ffn, product 2*ffn.
TEST(Activations, GqaSwiGluByHand) {
  ModelSpec m;
  m.layers = 1;
  m.hidden = 8192;
  m.heads = 64;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.vocab = 128256;
  m.ffn_hidden = 28672;
  const double per_token = 4 * 8192 + 2 * 8192 + 2 * 8192 + 2 * 8192 + 4 * 1024 + 2 * 8192 + 6.0 * 28672;
  ActivationOptions o;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, false, 1, 8192, o), 8192 * per_token);
  // CP halves the tokens per GPU; SP with tp=4 shards everything by 4.
  o.cp = 2;
  o.tp = 4;
  o.sp = true;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, false, 1, 8192, o), 4096 * per_token / 4);
  // FP8 keeps the four GEMM inputs (QKV in, out-proj in, MLP in, down-proj in) at 1 byte, and
  // FlashAttention still keeps its 16-bit output.
  ActivationOptions f8;
  f8.precision = Precision::kFp8;
  const double fp8_per_token = per_token - 8192 - 8192 + 8192 - 28672;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, false, 1, 8192, f8), 8192 * fp8_per_token);
}

}  // namespace
}  // namespace paratune
