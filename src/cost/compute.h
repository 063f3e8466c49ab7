// Time of the work inside one GPU: GEMMs from their shape (roofline with tile/wave
// quantization), FlashAttention-class attention, and memory-bound kernels from bytes moved over
// HBM. docs/cost-model.md, "Compute time".
#pragma once

#include "hardware/gpu_spec.h"

namespace paratune {

// Fixed cost of one kernel (launch and tail) on the GPU, seconds. NVIDIA's CUDA C++ Best
// Practices Guide puts back-to-back launch overhead at a few microseconds.
inline constexpr double kKernelOverheadS = 2e-6;
// Output tile of one thread block in cuBLAS/CUTLASS GEMMs on Ampere..Blackwell (NVIDIA
// "Matrix Multiplication Background" guide: 128x128 and 256x128 tiles).
inline constexpr double kGemmTile = 128;
// Reduction depth a tile's prologue (filling the multistage operand pipeline) and epilogue
// (writing C) cost: about 3 stages of 64-deep K blocks plus the store (CUTLASS mainloop design,
// "Efficient GEMM in CUDA", CUTLASS docs/efficient_gemm.md). Not fitted.
inline constexpr double kGemmTileOverheadK = 192;

// Time of C[M,N] = A[M,K] B[K,N] in precision p; `count` identical GEMMs (grouped experts).
double GemmTime(const GpuSpec& gpu, Precision p, double M, double N, double K, double count = 1);

// Fraction of the achievable peak a GEMM of this shape gets (tile and wave quantization of the
// output over the SMs, with split-K for skinny outputs). In (0, 1].
double GemmShapeUtilization(const GpuSpec& gpu, double M, double N, double K);

// How FlashAttention's rate grows with the keys one kernel streams per query block and with the
// head dim: each query tile pays a prologue, the causal diagonal and the softmax rescaling,
// amortised over more key tiles; a larger head dim does more MMA work per byte of tile loaded.
//   u(keys, d) = keys / (keys + S0) * d / (d + kAttentionHeadDim0)
// S0 per generation (not fitted) from the published forward+backward curves by sequence length
// (causal, head dim 128): FlashAttention-2 on A100 (Dao 2023, arXiv 2307.08691, Fig. 4: about
// 110 TFLOP/s at 512, 160 at 2k, 175 at 16k) gives S0 = 300; FlashAttention-3 on H100 (Shah et
// al. 2024, arXiv 2407.08608, Fig. 5: about 200 at 512, 500 at 4k, 610 at 16k) gives S0 = 1150,
// used for Blackwell too (no published curve; cuDNN's and FA3's kernels share the design).
// kAttentionHeadDim0: FlashAttention-2 Fig. 4, head dim 64 reaches about 0.79 of head dim 128.
// The calibration's `attention` fraction is the rate as u -> 1.
inline constexpr double kAttentionHeadDim0 = 46;
double AttentionRampKeys(const GpuSpec& gpu);
double AttentionShapeUtilization(const GpuSpec& gpu, double keys, double head_dim);

// FlashAttention-class kernel time for `flops` of attention (forward or backward) in BF16, over
// `keys` keys per kernel (sequence per CP rank) with heads of `head_dim`.
double AttentionTime(const GpuSpec& gpu, double flops, double keys, double head_dim);

// A memory-bound kernel moving `bytes` through HBM.
double MemoryBoundTime(const GpuSpec& gpu, double bytes, double kernels = 1);

}  // namespace paratune
