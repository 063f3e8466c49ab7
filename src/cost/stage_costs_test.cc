// Tests of the stage costs: NCCL's SMs stretch the passes that ZeRO-2/3 collectives run under
// (docs/cost-model.md section 7), derived here from the same costs with the share set to 0.
#include "cost/stage_costs.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hardware/hardware_catalog.h"
#include "layout/rules.h"
#include "model/catalog.h"

namespace paratune {
namespace {

StepCosts Costs(ClusterSpec c, int zero, int vp, double share) {
  const ModelSpec m = LoadModel("llama-3.1-8b");
  const Training t{4096, 64, Precision::kBf16};
  c.gpu.calibration.nccl_sm_share = share;
  Layout l;
  l.tp = 1;
  l.pp = 2;
  l.vp = vp;
  l.zero = zero;
  EXPECT_TRUE(CheckLayout(m, c, t, l).empty());
  return ComputeStepCosts(m, c, t, l, {});
}

// With work W and C seconds of collectives under a pass: W' = min(W + s C, W / (1 - s)).
double Stretched(double w, double c, double s) { return std::min(w + s * c, w / (1 - s)); }

TEST(StageCosts, NcclSmsStretchTheBackwardOfZeroTwo) {
  const ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("H100-SXM", 16);
  const double s = c.gpu.calibration.nccl_sm_share;
  ASSERT_DOUBLE_EQ(s, 0.182);  // 24 NCCL channels over 132 SMs (data/calibration_initial.toml)
  for (int vp : {1, 2}) {
    const StepCosts plain = Costs(c, 2, vp, 0), shared = Costs(c, 2, vp, s);
    ASSERT_EQ(plain.stages.size(), 2u);
    for (size_t i = 0; i < plain.stages.size(); ++i) {
      const StageCost &a = plain.stages[i], &b = shared.stages[i];
      ASSERT_EQ(b.chunks.size(), static_cast<size_t>(vp));
      EXPECT_DOUBLE_EQ(a.grad_reduce_s(), b.grad_reduce_s());  // the collective itself is the same
      EXPECT_GT(a.grad_reduce_s(), 0);
      double added = 0;
      for (size_t k = 0; k < a.chunks.size(); ++k) {
        // ZeRO-2 gathers once per step, not under the passes: forwards stay.
        EXPECT_DOUBLE_EQ(b.chunks[k].forward_s, a.chunks[k].forward_s);
        const double want = Stretched(a.chunks[k].backward_s, a.grad_reduce_s() / vp, s);
        EXPECT_NEAR(b.chunks[k].backward_s, want, 1e-12 * want) << "stage " << i << " chunk " << k;
        EXPECT_NEAR(b.chunks[k].weight_grad_s, a.chunks[k].weight_grad_s * want / a.chunks[k].backward_s, 1e-12 * want);
        added += want - a.chunks[k].backward_s;
      }
      EXPECT_GT(added, 0);
      EXPECT_NEAR(b.nccl_contention_s, added, 1e-12 * b.compute_s);
      EXPECT_NEAR(b.compute_s, a.compute_s + added, 1e-12 * b.compute_s);
      EXPECT_DOUBLE_EQ(a.nccl_contention_s, 0);
    }
  }
}

TEST(StageCosts, NcclSmsStretchBothPassesOfZeroThreeAndNoneOfZeroOne) {
  const ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("H100-SXM", 16);
  const double s = c.gpu.calibration.nccl_sm_share;
  const StepCosts plain = Costs(c, 3, 1, 0), shared = Costs(c, 3, 1, s);
  ASSERT_EQ(shared.zero3_gathers_forward, 1);
  ASSERT_EQ(shared.zero3_gathers_backward, 1);
  for (size_t i = 0; i < plain.stages.size(); ++i) {
    const StageCost &a = plain.stages[i], &b = shared.stages[i];
    EXPECT_NEAR(b.forward_s, Stretched(a.forward_s, a.param_gather_s(), s), 1e-12 * b.forward_s);
    EXPECT_NEAR(b.backward_s, Stretched(a.backward_s, a.param_gather_s() + a.grad_reduce_s(), s), 1e-12 * b.backward_s);
  }
  // ZeRO-1 reduces once and gathers once per step: no pass is stretched.
  const StepCosts one = Costs(c, 1, 1, 0), one_shared = Costs(c, 1, 1, s);
  for (size_t i = 0; i < one.stages.size(); ++i) {
    EXPECT_DOUBLE_EQ(one_shared.stages[i].forward_s, one.stages[i].forward_s);
    EXPECT_DOUBLE_EQ(one_shared.stages[i].backward_s, one.stages[i].backward_s);
    EXPECT_DOUBLE_EQ(one_shared.stages[i].nccl_contention_s, 0);
  }
}

}  // namespace
}  // namespace paratune
