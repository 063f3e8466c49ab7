#include "cost/layer_cost.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace paratune
