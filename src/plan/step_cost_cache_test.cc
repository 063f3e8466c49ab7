// Tests of the planner's stage-cost cache: the ZeRO stages of a branch share the ZeRO-free costs,
// and every figure the bounds read is the one ComputeStepCosts gives, to the bit.
#include "plan/step_cost_cache.h"

#include <gtest/gtest.h>

#include "hardware/hardware_catalog.h"
#include "layout/pipeline_split.h"
#include "layout/constraints.h"
#include "model/catalog.h"

namespace paratune {
namespace {

void ExpectSameStages(const StepCosts& a, const StepCosts& b) {
  ASSERT_EQ(a.stages.size(), b.stages.size());
  EXPECT_EQ(a.micro_batches, b.micro_batches);
  EXPECT_EQ(a.critical_stage, b.critical_stage);
  EXPECT_EQ(a.zero3_gathers_forward, b.zero3_gathers_forward);
  EXPECT_EQ(a.zero3_gathers_backward, b.zero3_gathers_backward);
  for (size_t s = 0; s < a.stages.size(); ++s) {
    const StageCost &x = a.stages[s], &y = b.stages[s];
    EXPECT_EQ(x.forward_s, y.forward_s);
    EXPECT_EQ(x.backward_s, y.backward_s);
    EXPECT_EQ(x.weight_grad_s, y.weight_grad_s);
    EXPECT_EQ(x.time_s(), y.time_s());
    EXPECT_EQ(x.nccl_contention_s, y.nccl_contention_s);
    ASSERT_EQ(x.chunks.size(), y.chunks.size());
    for (size_t k = 0; k < x.chunks.size(); ++k) {
      EXPECT_EQ(x.chunks[k].forward_s, y.chunks[k].forward_s);
      EXPECT_EQ(x.chunks[k].backward_s, y.chunks[k].backward_s);
      EXPECT_EQ(x.chunks[k].weight_grad_s, y.chunks[k].weight_grad_s);
    }
    for (const MemoryTerm& term : kMemoryTerms) EXPECT_EQ(x.memory.*term.value, y.memory.*term.value) << term.key;
    EXPECT_EQ(x.activation_bytes, y.activation_bytes);
    EXPECT_EQ(x.working_bytes, y.working_bytes);
    EXPECT_EQ(x.grad_reduce_s(), y.grad_reduce_s());
    EXPECT_EQ(x.param_gather_s(), y.param_gather_s());
    EXPECT_EQ(x.optimizer_s, y.optimizer_s);
  }
}

// In the planner's order (ZeRO, then recomputation, then micro-batch), each ZeRO stage's costs
// from the cache equal ComputeStepCosts', for a MoE model with uneven stages and an interleaved
// dense one; a new branch (another pp) does not reuse the last one's.
TEST(StepCostCache, EveryZeroStageGetsComputeStepCostsFigures) {
  struct Case {
    const char* model;
    int gpus, tp, pp, vp, ep;
  };
  for (const Case& k : {Case{"deepseek-v3", 2048, 1, 4, 1, 8}, Case{"llama-3.1-8b", 64, 2, 2, 2, 1}}) {
    const ModelSpec m = LoadModel(k.model);
    const ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("B300", k.gpus);
    const Training t{4096, 4096, Precision::kBf16};
    const StateBytesPerParam state_bytes{};
    StepCostCache cache(m, c, state_bytes);
    for (int pp : {k.pp, 2 * k.pp}) {
      Layout l;
      l.tp = k.tp;
      l.pp = pp;
      l.vp = k.vp;
      l.ep = k.ep;
      l.etp = 1;
      if (m.layers % (pp * k.vp) != 0) l.pp_layout = SplitCandidates(m.layers, pp, k.vp).front();
      DeriveDp(c, l);
      cache.NewBranch();
      for (int zero : {0, 1, 2, 3})
        for (Recompute rc : {Recompute::kNone, Recompute::kFull})
          for (int mbs : {1, 2}) {
            l.zero = zero;
            l.recompute = rc;
            l.mbs = mbs;
            SCOPED_TRACE(testing::Message() << k.model << " pp " << pp << " zero " << zero << " mbs " << mbs);
            ASSERT_TRUE(CheckLayout(m, c, t, l).empty());
            ExpectSameStages(cache.For(t, l), ComputeStepCosts(m, c, t, l, state_bytes));
          }
    }
  }
}

}  // namespace
}  // namespace paratune
