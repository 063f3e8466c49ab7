// Tests of the stage costs: NCCL's SMs stretch the passes that ZeRO-2/3 collectives run under
// (docs/cost-model.md section 7), derived here from the same costs with the share set to 0.
#include "cost/stage_costs.h"

#include "cost/layer_cost.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hardware/hardware_catalog.h"
#include "layout/constraints.h"
#include "model/catalog.h"

namespace paratune {
namespace {

// Llama-3.1-8B, 4096-token sequences, batch 64, BF16, on `gpus` H100s with tp 1: the setting of
// the model-state tests below.
struct Llama8b {
  ClusterSpec c;
  ModelSpec m = LoadModel("llama-3.1-8b");
  Training t{4096, 64, Precision::kBf16};
  Layout l;
  Llama8b(int gpus, int pp, int zero) : c(HardwareCatalog::BuiltIn().Cluster("H100-SXM", gpus)) {
    l.tp = 1;
    l.pp = pp;
    l.zero = zero;
  }
  StepCosts Costs() const { return ComputeStepCosts(m, c, t, l, {}); }
};

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

// --grad-reduce-in-bf16 (Layout::grad_reduce_in_fp32 = false): Megatron-LM's gradient buffer takes
// the parameters' dtype (megatron/core/distributed/distributed_data_parallel.py: grad_dtype =
// param.dtype), so with ZeRO-1 each rank holds 2 bytes of gradient per parameter instead of 4
// (Megatron-LM theoretical_memory_usage.py: 18 -> 16 bytes per parameter before sharding the
// optimizer) and reduce-scatters half the bytes: on the same ring, the bandwidth part halves.
TEST(StageCosts, SixteenBitGradientsHalveTheGradientBufferAndItsReduction) {
  Llama8b s(16, 2, 1);
  const ClusterSpec& c = s.c;
  const ModelSpec& m = s.m;
  const Training& t = s.t;
  Layout& l = s.l;
  ASSERT_TRUE(CheckLayout(m, c, t, l).empty());
  const StepCosts fp32 = ComputeStepCosts(m, c, t, l, {});
  l.grad_reduce_in_fp32 = false;
  const StepCosts bf16 = ComputeStepCosts(m, c, t, l, {});
  ASSERT_EQ(fp32.stages.size(), 2u);
  for (size_t i = 0; i < fp32.stages.size(); ++i) {
    const StageCost &a = fp32.stages[i], &b = bf16.stages[i];
    ASSERT_GT(a.params(), 1e9);
    // The stage's unsharded gradients: 4 and 2 bytes for each parameter it holds.
    EXPECT_NEAR(a.memory.grads, 4 * a.params(), 1e-9 * a.memory.grads);
    EXPECT_NEAR(b.memory.grads, 2 * b.params(), 1e-9 * b.memory.grads);
    // Parameters and the sharded optimizer do not change.
    EXPECT_DOUBLE_EQ(b.memory.params, a.memory.params);
    EXPECT_DOUBLE_EQ(b.memory.optimizer, a.memory.optimizer);
    // Half the bytes over the same ranks: between half and all of the time (latency stays).
    EXPECT_LT(b.grad_reduce_s(), 0.75 * a.grad_reduce_s());
    EXPECT_GT(b.grad_reduce_s(), 0.5 * a.grad_reduce_s());
    // The parameter all-gather was 16-bit already.
    EXPECT_DOUBLE_EQ(b.param_gather_s(), a.param_gather_s());
  }
}

// PyTorch FSDP's mixed precision (Layout::fp32_shards): under ZeRO-3 the FP32 parameter shard
// is the optimizer's master copy, so no 16-bit shard is kept: 4 (grad) + 12 (master, m, v) = 16
// bytes per sharded parameter, against Megatron-LM's 2 + 4 + 12 = 18. The gradient shard stays
// FP32 when the reduction is 16-bit; the gathered copies in flight and the traffic are the same.
TEST(StageCosts, Fp32ShardsKeepNoSixteenBitParameterShard) {
  Llama8b s(8, 1, 3);
  const ClusterSpec& c = s.c;
  const ModelSpec& m = s.m;
  const Training& t = s.t;
  Layout& l = s.l;
  ASSERT_TRUE(CheckLayout(m, c, t, l).empty());
  const StepCosts megatron = ComputeStepCosts(m, c, t, l, {});
  l.fp32_shards = true;
  const StepCosts fsdp = ComputeStepCosts(m, c, t, l, {});
  l.grad_reduce_in_fp32 = false;
  const StepCosts fsdp_bf16_reduce = ComputeStepCosts(m, c, t, l, {});
  ASSERT_EQ(fsdp.stages.size(), 1u);
  const StageCost &a = megatron.stages[0], &b = fsdp.stages[0], &h = fsdp_bf16_reduce.stages[0];
  const double shard = a.params() / 8;  // parameters per GPU: ZeRO-3 over dp = 8
  ASSERT_GT(shard, 0.9e9);
  EXPECT_NEAR(a.memory.params, 2 * shard, 1e-9 * a.memory.params);
  EXPECT_EQ(b.memory.params, 0);
  EXPECT_NEAR(b.memory.grads, 4 * shard, 1e-9 * b.memory.grads);
  EXPECT_NEAR(b.memory.optimizer, 12 * shard, 1e-9 * b.memory.optimizer);
  EXPECT_NEAR(b.memory.params + b.memory.grads + b.memory.optimizer, 16 * shard, 1e-9 * 16 * shard);
  EXPECT_DOUBLE_EQ(b.memory.zero3_buffers, a.memory.zero3_buffers);
  EXPECT_DOUBLE_EQ(b.grad_reduce_s(), a.grad_reduce_s());
  EXPECT_DOUBLE_EQ(b.param_gather_s(), a.param_gather_s());
  // A 16-bit reduction: the shard stays FP32; the unsharded gradient in flight is 16-bit, so the
  // buffers of two gathered layers go from 2 x (2 + 4) to 2 x (2 + 2) bytes per parameter.
  EXPECT_DOUBLE_EQ(h.memory.grads, b.memory.grads);
  EXPECT_NEAR(h.memory.zero3_buffers, b.memory.zero3_buffers * 4 / 6, 1e-9 * b.memory.zero3_buffers);
  EXPECT_LT(h.grad_reduce_s(), 0.75 * b.grad_reduce_s());
  // ZeRO-2 (SHARD_GRAD_OP) keeps the unsharded 16-bit parameters through the passes.
  l.zero = 2;
  const StageCost z2 = ComputeStepCosts(m, c, t, l, {}).stages[0];
  EXPECT_NEAR(z2.memory.params, 2 * a.params(), 1e-9 * z2.memory.params);
  EXPECT_NEAR(z2.memory.grads, 4 * shard, 1e-9 * z2.memory.grads);
}

// Adam's states (Layout::optimizer_states), hand-counted: an FP32 master, momentum and variance
// are 12 bytes per parameter; the master as 16-bit remainders, 10; BF16 moments and no master
// (NeMo 1 distributed_fused_adam with optim.dtype bf16), 4. Each is sharded over dp = 8 under
// the distributed optimizer. The step's HBM traffic per updated parameter is 34, 32 and 16 bytes
// (stage_costs.cc OptimizerStepBytesPerParam), the kernel launches the same.
TEST(StageCosts, OptimizerStatesSetAdamsBytesPerParameter) {
  Llama8b s(8, 1, 1);
  ASSERT_TRUE(CheckLayout(s.m, s.c, s.t, s.l).empty());
  const StageCost fp32 = s.Costs().stages[0];
  s.l.optimizer_states = OptimizerStates::kFp32Remainders;
  const StageCost remainders = s.Costs().stages[0];
  s.l.optimizer_states = OptimizerStates::kBf16;
  const StageCost bf16 = s.Costs().stages[0];
  const ClusterSpec& c = s.c;
  const double shard = fp32.params() / 8;
  ASSERT_GT(shard, 0.9e9);
  EXPECT_NEAR(fp32.memory.optimizer, 12 * shard, 1e-9 * fp32.memory.optimizer);
  EXPECT_NEAR(remainders.memory.optimizer, 10 * shard, 1e-9 * fp32.memory.optimizer);
  EXPECT_NEAR(bf16.memory.optimizer, 4 * shard, 1e-9 * fp32.memory.optimizer);
  for (const StageCost* s : {&remainders, &bf16}) {
    EXPECT_DOUBLE_EQ(s->memory.params, fp32.memory.params);
    EXPECT_DOUBLE_EQ(s->memory.grads, fp32.memory.grads);
  }
  // optimizer_s = bytes / (HBM bandwidth x hbm fraction) + 4 kernel launches: the launch part
  // cancels in the differences, which scale as the bytes do.
  const GpuSpec& g = c.gpu;
  const double per_byte = 1 / (g.hbm_bytes_per_s * g.calibration.hbm);
  EXPECT_NEAR(fp32.optimizer_s - remainders.optimizer_s, shard * (34 - 32) * per_byte, 1e-9);
  EXPECT_NEAR(fp32.optimizer_s - bf16.optimizer_s, shard * (34 - 16) * per_byte, 1e-9);
}

// TP overlap (Transformer Engine userbuffers): the collective hides behind the GEMMs, which
// stretch by the share of SMs the collective holds, as the passes under ZeRO-2/3 collectives do:
// exposed = (C - min(C, W)) + min(s min(C, W), W s / (1 - s)), forward against the forward GEMMs.
// Llama-3.1-70B on one H100 node at 8,192 tokens, tp `tp`, pp 1, SP on.
struct Llama70bTp {
  explicit Llama70bTp(int tp) {
    l.tp = tp;
    l.pp = 1;
  }
  ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("H100-SXM", 8);
  ModelSpec m = LoadModel("llama-3.1-70b");
  Training t{8192, 64, Precision::kBf16};
  Layout l;
};

TEST(StageCosts, OverlappedTpCommunicationStretchesTheGemmsItHidesBehind) {
  Llama70bTp x(8);
  const ClusterSpec& c = x.c;
  const ModelSpec& m = x.m;
  const Training& t = x.t;
  Layout& l = x.l;
  l.recompute = Recompute::kFull;
  ASSERT_TRUE(CheckLayout(m, c, t, l).empty());
  const double s = c.gpu.calibration.nccl_sm_share;
  ASSERT_GT(s, 0.1);
  const LayerCost blocking = ComputeLayerCost(m, false, c, t, l);
  l.overlap_tp_comm = true;
  const LayerCost hidden = ComputeLayerCost(m, false, c, t, l);
  const double C = hidden.tp_fwd_s, W = hidden.gemm_fwd_s;
  ASSERT_GT(C, 0);
  ASSERT_GT(W, C);  // tp 8 inside NVLink: the GEMMs are longer than the collectives
  EXPECT_DOUBLE_EQ(C, blocking.tp_fwd_s);
  EXPECT_NEAR(hidden.tp_exposed_fwd_s, s * C, 1e-12 * W);
  EXPECT_LT(hidden.tp_exposed_fwd_s, blocking.tp_exposed_fwd_s);
  EXPECT_LT(hidden.tp_exposed_bwd_s, blocking.tp_exposed_bwd_s);
  EXPECT_GT(hidden.tp_exposed_bwd_s, 0);
  // With no SMs held, the collective hides entirely.
  ClusterSpec free_sms = c;
  free_sms.gpu.calibration.nccl_sm_share = 0;
  EXPECT_DOUBLE_EQ(ComputeLayerCost(m, false, free_sms, t, l).tp_exposed_fwd_s, 0);
}

// Without userbuffers, Megatron's backward still runs 4 of its 6 SP collectives asynchronously:
// each column-parallel GEMM's input re-gather under its input-gradient GEMM and its
// reduce-scatter under its weight-gradient GEMM. At tp 2 those GEMMs (Llama-3.1-70B, 8,192
// tokens) are several times the collectives, which hide, but holding s of the SMs they stretch
// the GEMMs by s x their time: exposed backward = 2 C + 4 s C with C one collective.
TEST(StageCosts, AsyncBackwardTpCollectivesStretchTheGemmsTheyHideBehind) {
  Llama70bTp x(2);
  ASSERT_TRUE(CheckLayout(x.m, x.c, x.t, x.l).empty());
  const double s = x.c.gpu.calibration.nccl_sm_share;
  const LayerCost lc = ComputeLayerCost(x.m, false, x.c, x.t, x.l);
  const double C = lc.tp_call_s;
  ASSERT_EQ(lc.tp_calls_bwd, 6);
  EXPECT_NEAR(lc.tp_exposed_bwd_s, 2 * C + 4 * s * C, 1e-12);
  EXPECT_DOUBLE_EQ(lc.tp_exposed_fwd_s, 4 * C);  // the forward's four are blocking
  ClusterSpec free_sms = x.c;
  free_sms.gpu.calibration.nccl_sm_share = 0;
  EXPECT_NEAR(ComputeLayerCost(x.m, false, free_sms, x.t, x.l).tp_exposed_bwd_s, 2 * C, 1e-12);
}

}  // namespace
// Activation offloading (Transformer Engine's per-layer handler): the first N layers' activations
// leave the HBM but for the one in flight, and each layer's copy hides behind the next layer's
// forward (to the host) and backward (back): exposed N (max(0, x - f) + max(0, x - b)) with
// x = the layer's activation bytes / the host link.
TEST(StageCosts, OffloadedLayersLeaveTheHbmAndExposeWhatTheirCopiesOutlast) {
  Llama8b s(8, 1, 1);
  ASSERT_TRUE(CheckLayout(s.m, s.c, s.t, s.l).empty());
  const StepCosts plain = s.Costs();
  s.l.offload_layers = 20;
  ASSERT_TRUE(CheckLayout(s.m, s.c, s.t, s.l).empty());
  const StepCosts off = s.Costs();
  const StageCost &a = plain.stages[0], &b = off.stages[0];
  const double act = a.activation_bytes / 32;  // 32 dense layers, nothing else in the sum
  ASSERT_GT(act, 0.2e9);
  EXPECT_NEAR(b.activation_bytes, 12 * act, 1e-6 * act);
  EXPECT_DOUBLE_EQ(a.working_bytes, 0);
  EXPECT_NEAR(b.working_bytes, act, 1e-6 * act);
  EXPECT_EQ(b.offloaded_layers, 20);
  EXPECT_NEAR(b.offload_bytes, 20 * act, 1e-6 * act);
  // H100 HGX: PCIe Gen5 x16 to the host, 63 GB/s per direction (data/gpus.toml).
  ASSERT_DOUBLE_EQ(s.c.fabric.host_link_bytes_per_s, 63e9);
  const LayerCost& d = plain.dense;
  const double x = act / 63e9;
  const double f = d.fwd_compute_s + d.tp_exposed_fwd_s + d.cp_exposed_fwd_s + d.ep_exposed_fwd_s;
  const double bw = d.bwd_compute_s + d.tp_exposed_bwd_s + d.cp_exposed_bwd_s + d.ep_exposed_bwd_s;
  ASSERT_GT(x, f);  // a ~0.4 GB layer takes longer to copy over PCIe than its forward
  const double fwd_exposed = 20 * (x - f), bwd_exposed = 20 * std::max(0.0, x - bw);
  EXPECT_NEAR(b.offload_exposed_s, fwd_exposed + bwd_exposed, 1e-12);
  EXPECT_NEAR(b.forward_s - a.forward_s, fwd_exposed, 1e-12);
  EXPECT_NEAR(b.backward_s - a.backward_s, bwd_exposed, 1e-12);
  EXPECT_NEAR(b.time_s() - a.time_s(), fwd_exposed + bwd_exposed, 1e-12);
  EXPECT_DOUBLE_EQ(b.compute_s, a.compute_s);
  // Over NVLink-C2C-class rates the copies hide completely.
  s.c.fabric.host_link_bytes_per_s = 1e13;
  const StageCost fast = s.Costs().stages[0];
  EXPECT_DOUBLE_EQ(fast.offload_exposed_s, 0);
  EXPECT_DOUBLE_EQ(fast.time_s(), a.time_s());
  EXPECT_NEAR(fast.activation_bytes, 12 * act, 1e-6 * act);
}

}  // namespace paratune
