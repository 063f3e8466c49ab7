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
// amortised over more key tiles, and a smaller head dim does less MMA work per tile:
//   u(keys, d) = keys / (keys + S0 * 128 / d)
// S0 per generation (not fitted here): a least-squares fit of A * s / (s + S0) to the causal,
// head-dim-128 forward series in FlashAttention-3's H100 benchmark figure (Shah et al. 2024,
// arXiv 2407.08608, Fig. 5: FlashAttention-3 292, 423, 521, 579, 602, 616 TFLOP/s at 512 to 16k
// tokens -> S0 = 565; FlashAttention-2 191, 260, 298, 319, 333, 335 -> S0 = 385). Hopper and
// Blackwell use FlashAttention-3's, Ampere FlashAttention-2's (the kernel it runs). Halving the
// head dim (the same paper's head-dim-64 charts) multiplies the short-sequence loss by 2.4-4.3;
// the linear 128/d is the low end. The calibration's `attention` fraction is the rate as u -> 1.
//
// `fa2`: the flash-attn 2 package rather than the generation's fused kernel. On Hopper and
// Blackwell it has no native (wgmma/TMA) path: the same figure's FlashAttention-2 series reaches
// A = 348 TFLOP/s where FlashAttention-3's reaches 648 (the fits above), so it runs at
// kFa2OverFused = 0.538 of the calibrated rate with FlashAttention-2's ramp. On Ampere it is the
// kernel the calibration describes (factor 1). Not fitted.
inline constexpr double kFa2OverFused = 348.4 / 648.1;
double AttentionRampKeys(const GpuSpec& gpu, bool fa2 = false);
double AttentionShapeUtilization(const GpuSpec& gpu, double keys, double head_dim, bool fa2 = false);

// Exponentials per second of the GPU's special function units: sm_count x
// sfu_exp_per_clk_per_sm x clock, the clock being the dense BF16 peak over the SMs' tensor-core
// FLOPs per clock (2,048 per SM on Ampere, 4,096 on Hopper, 8,192 on Blackwell: the A100, H100
// and Blackwell architecture whitepapers, each generation doubling the dense FP16 MMA rate per
// SM): B200 2.25e15 x 16 / 8192 = 4.4e12, GB300 2.5e15 x 32 / 8192 = 9.8e12.
double ExpRate(const GpuSpec& gpu);

// FlashAttention-class kernel time for `flops` of attention (forward or backward) in BF16, over
// `keys` keys per kernel (sequence per CP rank) with heads of `head_dim`, computing `exps`
// softmax exponentials. On Blackwell the tile's second matrix multiply waits for its softmax
// (NVIDIA, "Making Softmax More Efficient with NVIDIA Blackwell Ultra": on GB200 BMM2 cannot
// start until the MUFU.EX2 work completes), so the exponentials add ExpRate time at the same
// achievable fraction; Hopper's FlashAttention-3 / cuDNN kernels overlap softmax with the
// matrix multiplies of another warpgroup (Shah et al. 2024, arXiv 2407.08608 Sec. 3.1) and
// Ampere's exponentials take a quarter of its MMA time, hidden by the other warps: neither adds.
//
// `fp8`: the matrix multiplies in FP8 (Transformer Engine's fp8_dot_product_attention, cuDNN's
// FP8 fused attention), at the FP8 tensor rate with the same achievable fraction; the
// exponentials stay as many.
double AttentionTime(const GpuSpec& gpu, double flops, double keys, double head_dim, bool fa2 = false, double exps = 0,
                     bool fp8 = false);

// A memory-bound kernel moving `bytes` through HBM.
double MemoryBoundTime(const GpuSpec& gpu, double bytes, double kernels = 1);

}  // namespace paratune
