#include "cost/compute.h"

#include <gtest/gtest.h>

#include "hardware/hardware_catalog.h"

namespace paratune {
namespace {

GpuSpec H100() { return HardwareCatalog::BuiltIn().Find("H100"); }

// 8192^3 on 132 SMs with 128x128 tiles: 4096 tiles in ceil(4096/132) = 32 waves, the last one
// partial: 4096 / (32*132) = 0.9697 of the SMs busy on average; each tile's pipeline fill and
// drain costs 192 of its 8192-deep reduction: 8192 / (8192 + 192).
TEST(Compute, LargeSquareGemmWaveQuantization) {
  const GpuSpec g = H100();
  const double util = 4096.0 / (32 * 132) * 8192 / (8192 + kGemmTileOverheadK);
  EXPECT_DOUBLE_EQ(GemmShapeUtilization(g, 8192, 8192, 8192), util);
  const double rate = g.bf16_flops * g.calibration.gemm_bf16 * util;
  EXPECT_DOUBLE_EQ(GemmTime(g, Precision::kBf16, 8192, 8192, 8192), 2.0 * 8192 * 8192 * 8192 / rate + kKernelOverheadS);
}

// 200 x 200 output: 2x2 tiles of 128 hold 40000 of 65536 outputs (tile quantization 0.61), and
// with K = 256 there is no split-K: 4 tiles on 132 SMs, each 256 deep of which 192 is overhead.
TEST(Compute, SmallGemmIsFarBelowPeak) {
  const GpuSpec g = H100();
  EXPECT_DOUBLE_EQ(GemmShapeUtilization(g, 200, 200, 256), 40000.0 / 65536 * 4 / 132 * 256 / (256 + 192));
}

// 256 x 256 output, K = 8192: 4 tiles split min(floor(132/4), 8192/512) = 16 ways along K,
// 64 tiles of 512-deep slices in one wave.
TEST(Compute, SplitKFillsIdleSms) {
  const GpuSpec g = H100();
  EXPECT_DOUBLE_EQ(GemmShapeUtilization(g, 256, 256, 8192), 64.0 / 132 * 512 / (512 + 192));
}

// A skinny GEMM (M=128 tokens, 8192x8192 weight) is bound by reading the weight from HBM:
// roofline bytes 2*(128*8192 + 8192*8192) + 2*128*8192 over the achievable HBM bandwidth.
TEST(Compute, SkinnyGemmIsMemoryBound) {
  const GpuSpec g = H100();
  const double bytes = 2.0 * (128 * 8192 + 8192.0 * 8192) + 2.0 * 128 * 8192;
  EXPECT_DOUBLE_EQ(GemmTime(g, Precision::kBf16, 128, 8192, 8192),
                   bytes / (g.hbm_bytes_per_s * g.calibration.hbm) + kKernelOverheadS);
}

TEST(Compute, Fp8IsFasterForLargeGemms) {
  const GpuSpec g = H100();
  const double bf16 = GemmTime(g, Precision::kBf16, 16384, 8192, 8192);
  const double fp8 = GemmTime(g, Precision::kFp8, 16384, 8192, 8192);
  EXPECT_NEAR(bf16 / fp8, 2.0 * g.calibration.gemm_fp8 / g.calibration.gemm_bf16, 0.01);
}

TEST(Compute, AttentionAndMemoryBound) {
  const GpuSpec g = H100();
  // FlashAttention's ramp: at 8k keys and head dim 128 on Hopper (S0 = 1150), u = 8192/9342 *
  // 128/174; the fraction is the rate as keys and head dim grow.
  const double u = 8192.0 / (8192 + 1150) * 128.0 / (128 + 46);
  EXPECT_DOUBLE_EQ(AttentionShapeUtilization(g, 8192, 128), u);
  EXPECT_DOUBLE_EQ(AttentionTime(g, 1e12, 8192, 128),
                   1e12 / (g.bf16_flops * g.calibration.attention * u) + kKernelOverheadS);
  // Head dim 64 against 128: 64/110 over 128/174 = 0.79 (FlashAttention-2 Fig. 4).
  EXPECT_NEAR(AttentionShapeUtilization(g, 1e9, 64) / AttentionShapeUtilization(g, 1e9, 128), 0.79, 0.005);
  EXPECT_DOUBLE_EQ(MemoryBoundTime(g, 1e9, 3), 1e9 / (g.hbm_bytes_per_s * g.calibration.hbm) + 3 * kKernelOverheadS);
  EXPECT_DOUBLE_EQ(GemmTime(g, Precision::kBf16, 0, 10, 10), 0);
}

}  // namespace
}  // namespace paratune
