#include "cost/compute.h"

#include <algorithm>
#include <cmath>

namespace paratune {

double GemmShapeUtilization(const GpuSpec& gpu, double M, double N, double K) {
  const double sms = std::max(1, gpu.sm_count);
  // Tile quantization: the padded tiles do full work for partial outputs.
  const double tm = std::ceil(M / kGemmTile), tn = std::ceil(N / kGemmTile);
  const double tile_util = (M * N) / (tm * tn * kGemmTile * kGemmTile);
  // Split-K gives idle SMs work when the output has fewer tiles than SMs and K is long
  // (at least 512 deep per split).
  double tiles = tm * tn;
  double split = 1;
  if (tiles < sms) split = std::clamp(std::floor(sms / tiles), 1.0, std::max(1.0, std::floor(K / 512)));
  tiles *= split;
  // Wave quantization: the last wave runs partially full.
  const double waves = std::ceil(tiles / sms);
  const double wave_util = tiles / (waves * sms);
  // Pipeline fill and drain: each tile first loads its operand pipeline and finally writes C,
  // worth kGemmTileOverheadK of reduction depth, so efficiency grows as K/(K + K0).
  const double k_per_tile = K / split;
  const double depth_util = k_per_tile / (k_per_tile + kGemmTileOverheadK);
  return std::clamp(tile_util * wave_util * depth_util, 1e-3, 1.0);
}

double GemmTime(const GpuSpec& gpu, Precision p, double M, double N, double K, double count) {
  if (M <= 0 || N <= 0 || K <= 0 || count <= 0) return 0;
  const double rate = gpu.peak_flops(p) * gpu.calibration.gemm_efficiency(p) * GemmShapeUtilization(gpu, M, N, K);
  const double flops = 2 * M * N * K;
  // Operand bytes: inputs in the GEMM precision, output in 16-bit (roofline, Williams et al.
  // 2009, CACM 52(4)).
  // FP4 (NVFP4): 4 bits plus one 8-bit scale per 16 values = 0.5625 bytes.
  const double in_bytes = !IsQuantized(p) ? 2 : (p == Precision::kFp8 ? 1 : 0.5625);
  const double bytes = in_bytes * (M * K + K * N) + 2 * M * N;
  const double t = std::max(flops / rate, bytes / (gpu.hbm_bytes_per_s * gpu.calibration.hbm));
  return count * (t + kKernelOverheadS);
}

double AttentionRampKeys(const GpuSpec& gpu, bool fa2) { return gpu.generation == "ampere" || fa2 ? 385 : 565; }

double AttentionShapeUtilization(const GpuSpec& gpu, double keys, double head_dim, bool fa2) {
  if (keys <= 0 || head_dim <= 0) return 1;
  return keys / (keys + AttentionRampKeys(gpu, fa2) * 128 / head_dim);
}

double ExpRate(const GpuSpec& gpu) {
  const double mma_flops_per_clk = gpu.generation == "ampere" ? 2048 : gpu.generation == "hopper" ? 4096 : 8192;
  return gpu.bf16_flops * gpu.sfu_exp_per_clk_per_sm / mma_flops_per_clk;
}

double AttentionTime(const GpuSpec& gpu, double flops, double keys, double head_dim, bool fa2, double exps, bool fp8) {
  if (flops <= 0) return 0;
  const double kernel = fa2 && gpu.generation != "ampere" ? kFa2OverFused : 1.0;
  const double util = AttentionShapeUtilization(gpu, keys, head_dim, fa2);
  const double rate =
      (fp8 ? gpu.peak_flops(Precision::kFp8) : gpu.bf16_flops) * gpu.calibration.attention * kernel * util;
  double t = flops / rate;
  if (gpu.generation == "blackwell" && !fa2 && exps > 0) t += exps / (ExpRate(gpu) * gpu.calibration.attention * util);
  return t + kKernelOverheadS;
}

double MemoryBoundTime(const GpuSpec& gpu, double bytes, double kernels) {
  if (bytes <= 0) return 0;
  return bytes / (gpu.hbm_bytes_per_s * gpu.calibration.hbm) + kernels * kKernelOverheadS;
}

}  // namespace paratune
