#include "cost/activations.h"

#include <gtest/gtest.h>

#include "model/catalog.h"

namespace paratune {
namespace {

// Recomputation by module frees exactly the tensors it names (activations.cc, Korthikanti et
// al. 2022 Sec. 4.1 terms): layernorm the two norm outputs (2 x 2h bytes per token in BF16),
// mlp the dense MLP's tensors (gated: 2 x 2 ffn + 2 ffn bytes per token).
TEST(Activations, RecomputeModulesFreeTheirTensors) {
  const ModelSpec m = LoadModel("llama-3.1-8b");  // h 4096, ffn 14336
  ActivationOptions o;
  o.recompute = Recompute::kSelective;
  const double tokens = 4096;
  const double base = LayerActivationBytes(m, false, 1, tokens, o);
  o.recompute_modules = RecomputeModuleBit(RecomputeModule::kLayernorm);
  EXPECT_DOUBLE_EQ(base - LayerActivationBytes(m, false, 1, tokens, o), tokens * 2 * 2 * 4096);
  o.recompute_modules = RecomputeModuleBit(RecomputeModule::kMlp);
  EXPECT_DOUBLE_EQ(base - LayerActivationBytes(m, false, 1, tokens, o), tokens * (2 * 2 + 2) * 14336.0);
}

// DeepSeek-V3: mla_up_proj frees the per-head q, k, v (128 heads x (2 x 192 + 128) x 2 bytes per
// token); moe_act the experts' activation outputs and FP8 caching halves their inputs (8 copies
// per token, expert FFN 2048: 8 x 2048 x 1 byte, then 8 x 2 x 2048 x 1 byte).
TEST(Activations, MlaUpProjectionsAndExpertActivations) {
  const ModelSpec m = LoadModel("deepseek-v3");
  ActivationOptions o;
  o.precision = Precision::kFp8;
  o.recompute = Recompute::kSelective;
  const double tokens = 4096;
  const double base = LayerActivationBytes(m, true, 1, tokens, o);
  o.recompute_modules = RecomputeModuleBit(RecomputeModule::kMlaUpProj);
  EXPECT_DOUBLE_EQ(base - LayerActivationBytes(m, true, 1, tokens, o), tokens * 128 * (2 * 192 + 128) * 2.0);
  o.recompute_modules = RecomputeModuleBit(RecomputeModule::kMoeAct);
  const double act = LayerActivationBytes(m, true, 1, tokens, o);
  EXPECT_DOUBLE_EQ(base - act, tokens * 8 * 2048 * 1.0);
  o.fp8_activation_cache = true;
  EXPECT_DOUBLE_EQ(act - LayerActivationBytes(m, true, 1, tokens, o), tokens * 8 * 2 * 2048 * 1.0);
}

}  // namespace
}  // namespace paratune
