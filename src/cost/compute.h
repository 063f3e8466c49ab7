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

// FlashAttention-class kernel time for `flops` of attention (forward or backward) in BF16.
double AttentionTime(const GpuSpec& gpu, double flops);

// A memory-bound kernel moving `bytes` through HBM.
double MemoryBoundTime(const GpuSpec& gpu, double bytes, double kernels = 1);

}  // namespace paratune
