// Memory of one GPU: model states under ZeRO (Rajbhandari et al., SC'20, arXiv 1910.02054,
// Sec. 3.1 and 5), activations (activations.h), and a documented allowance for what the
// framework adds (CUDA context, NCCL buffers, allocator fragmentation). docs/cost-model.md.
#pragma once

#include <cstdint>

#include "hardware/gpu_spec.h"
#include "layout/layout.h"
#include "schema/memory_breakdown.h"

namespace paratune {

// Bytes kept per parameter. Rajbhandari et al. count 2 (fp16 param) + 2 (fp16 grad) +
// K = 12 (fp32 master, momentum, variance) = 16. Megatron-LM keeps fp32 main gradients
// (megatron/training/theoretical_memory_usage.py: 18 bytes/param), our default.
struct StateBytesPerParam {
  double param = 2;
  double grad = 4;
  double optimizer = 12;
  static StateBytesPerParam ZeroPaper() { return {2, 2, 12}; }
};

// Adam's bytes per parameter when its states are as `o` says (layout/layout.h OptimizerStates):
// 12 (FP32 master, momentum, variance), 10 (the master as 16-bit remainders), 4 (BF16 moments).
double OptimizerStateBytesPerParam(OptimizerStates o);

struct ModelStateBytes {
  double params = 0;
  double grads = 0;
  double optimizer = 0;
  double total() const { return params + grads + optimizer; }
};

// States of `params` parameters under ZeRO stage `zero` sharded over `shard_degree` ranks:
// 0: (p+g+K)Ψ; 1: (p+g)Ψ + KΨ/N; 2: pΨ + (g+K)Ψ/N; 3: (p+g+K)Ψ/N.
ModelStateBytes ModelStates(double params, int zero, double shard_degree, const StateBytesPerParam& b);

// Allowances outside the allocated bytes (docs/cost-model.md, "Framework allowance"). Not fitted.
inline constexpr double kCudaContextBytes = 0.75e9;   // context + cuBLAS/TE workspaces
inline constexpr double kNcclBytesPerGroup = 0.25e9;  // buffers of one NCCL communicator
// PyTorch's caching allocator (docs: pytorch.org/docs/stable/notes/cuda.html, "Memory
// management") reserves whole segments and rounds blocks, so the reserved peak exceeds the
// allocated peak. Measured on the SimuMax B200 Megatron-LM runs (max_reserved_mb vs
// max_allocated_mb of the rank with the largest allocation, MooreThreads/SimuMax
// docs/b200/b200_release_v1.2_summary.json, 19 configurations): 1.7% to 7.9%, mean 4.3%. One
// physical number, the mean, of the allocated bytes; bounds 0.017-0.079.
inline constexpr double kAllocatorReserveFraction = 0.043;

// Megatron-LM pads the vocabulary to a multiple of 128 x tp (make-vocab-size-divisible-by,
// megatron/training/tokenizer/tokenizer.py _vocab_size_with_padding): the embedding, the output
// head and the logits have that many rows.
int64_t PaddedVocab(int64_t vocab, int tp);

}  // namespace paratune
