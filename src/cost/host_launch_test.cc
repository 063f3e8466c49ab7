#include "cost/host_launch.h"

#include <gtest/gtest.h>

#include "cost/layer_cost.h"
#include "hardware/hardware_catalog.h"
#include "model/catalog.h"

namespace paratune {
namespace {

// Hand counts from the part tables in host_launch.cc.
TEST(HostLaunch, DenseLayerKernelsByKernelMode) {
  const ModelSpec m = LoadModel("llama-3.1-8b");
  Training t;
  Layout l;
  EXPECT_EQ(CountLayerLaunches(m, false, t, l).fwd_kernels, 8 + 5);  // fused attention block + MLP block
  l.stack.kernels = Kernels::kEager;
  EXPECT_EQ(CountLayerLaunches(m, false, t, l).fwd_kernels, 30 + 14);
  EXPECT_EQ(CountLayerLaunches(m, false, t, l).bwd_kernels, 2 * (30 + 14));
  t.precision = Precision::kFp8;  // one quantization per GEMM input of the 4 GEMM groups
  EXPECT_EQ(CountLayerLaunches(m, false, t, l).fwd_kernels, 30 + 14 + 4);
}

TEST(HostLaunch, MoeExpertsCountPerLocalExpertAndGraphsRemoveTheRest) {
  const ModelSpec m = LoadModel("qwen3-30b-a3b");  // 128 experts
  Training t;
  t.precision = Precision::kFp8;
  Layout l;
  l.ep = 8;  // 16 local experts
  l.stack.fused_permute = true;
  l.stack.cuda_graphs = CudaGraphs::kStatic;
  // Dynamic part: 16 experts x 2 GEMMs x (1 + quantize) + 1 activation + 6 fused permutation
  // kernels, plus one graph launch for the static rest.
  EXPECT_EQ(CountLayerLaunches(m, true, t, l).fwd_kernels, 16 * 2 * 2 + 1 + 6 + 1);
  l.stack.moe_dispatcher = MoeDispatcher::kHybridEp;
  EXPECT_EQ(CountLayerLaunches(m, true, t, l).fwd_kernels, 16 * 2 * 2 + 1 + 5 + 1);
  l.stack.cuda_graphs = CudaGraphs::kFull;
  EXPECT_EQ(CountLayerLaunches(m, true, t, l).fwd_kernels, 0);
  EXPECT_EQ(CountLayerLaunches(m, true, t, l).bwd_kernels, 0);
}

TEST(HostLaunch, HostBoundLayerWaitsForTheHost) {
  const ModelSpec m = LoadModel("qwen3-30b-a3b");
  ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("B200", 8);
  Training t;
  t.seq = 4096;
  Layout l;
  l.ep = 8;
  l.dp = 8;
  LayerCost fast = ComputeLayerCost(m, true, c, t, l);
  EXPECT_EQ(fast.host_exposed_fwd_s, 0);
  c.gpu.calibration.host_op_s = 1e-3;  // a host far slower than the GPU
  const LayerCost slow = ComputeLayerCost(m, true, c, t, l);
  const double host_fwd = CountLayerLaunches(m, true, t, l).fwd_kernels * 1e-3;
  EXPECT_DOUBLE_EQ(slow.host_fwd_s, host_fwd);
  EXPECT_NEAR(slow.fwd_compute_s, host_fwd - slow.exposed_fwd_s(), 1e-12);  // the pass lasts as long as the host
}

TEST(EagerKernels, UnfusedElementwiseCostsBytesCompiledDoesNot) {
  const ModelSpec m = LoadModel("llama-3.1-8b");
  const ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("H100-SXM", 8);
  Training t;
  Layout l;
  l.dp = 8;
  const LayerCost fused = ComputeLayerCost(m, false, c, t, l);
  l.stack.kernels = Kernels::kCompiled;
  EXPECT_DOUBLE_EQ(ComputeLayerCost(m, false, c, t, l).fwd_compute_s, fused.fwd_compute_s);
  l.stack.kernels = Kernels::kEager;
  const LayerCost eager = ComputeLayerCost(m, false, c, t, l);
  // Extra bytes per token: 2 norms x 32 h + 16 per Q and K element + 4 per FFN element.
  const double T = t.seq, h = 4096, rope = (32 + 8) * 128, ffn = 14336;
  const double extra = T * (2 * 32 * h + 16 * rope + 4 * ffn);
  const double hbm = c.gpu.hbm_bytes_per_s * c.gpu.calibration.hbm;
  EXPECT_NEAR(eager.fwd_compute_s - fused.fwd_compute_s, extra / hbm + 30 * kKernelOverheadS, 1e-6);
}

TEST(SdpaAttention, RunsFlashAttention2OnHopperAndTheFusedKernelOnBlackwell) {
  const ModelSpec m = LoadModel("llama-3.1-8b");
  Training t;
  Layout l;
  l.dp = 8;
  for (const char* gpu : {"H100-SXM", "B200"}) {
    const ClusterSpec c = HardwareCatalog::BuiltIn().Cluster(gpu, 8);
    l.attention_kernel = AttentionKernel::kSdpa;
    const double sdpa = ComputeLayerCost(m, false, c, t, l).attention_fwd_s;
    l.attention_kernel = std::string(gpu) == "B200" ? AttentionKernel::kFused : AttentionKernel::kFlashAttention2;
    EXPECT_DOUBLE_EQ(sdpa, ComputeLayerCost(m, false, c, t, l).attention_fwd_s) << gpu;
  }
}

}  // namespace
}  // namespace paratune
