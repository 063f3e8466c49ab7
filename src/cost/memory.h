// Memory of one GPU: model states under ZeRO (Rajbhandari et al., SC'20, arXiv 1910.02054,
// Sec. 3.1 and 5), activations (activations.h), and a documented allowance for what the
// framework adds (CUDA context, NCCL buffers, allocator fragmentation). docs/cost-model.md.
#pragma once

#include "hardware/gpu_spec.h"

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

struct ModelStateBytes {
  double params = 0;
  double grads = 0;
  double optimizer = 0;
  double total() const { return params + grads + optimizer; }
};

// States of `params` parameters under ZeRO stage `zero` sharded over `shard_degree` ranks:
// 0: (p+g+K)Ψ; 1: (p+g)Ψ + KΨ/N; 2: pΨ + (g+K)Ψ/N; 3: (p+g+K)Ψ/N.
ModelStateBytes ModelStates(double params, int zero, double shard_degree, const StateBytesPerParam& b);

// One GPU's memory, by kind, in bytes.
struct MemoryBreakdown {
  double params = 0;
  double grads = 0;
  double optimizer = 0;
  double fp8_weights = 0;    // Transformer Engine's cached FP8 weight copies (row + column)
  double zero3_buffers = 0;  // ZeRO-3/FSDP gathered parameters and gradients in flight
  double activations = 0;    // kept for backward, all micro-batches in flight
  double logits = 0;         // last stage: logits and FP32 loss work space for one micro-batch
  double runtime = 0;        // CUDA context, cuBLAS/TE workspaces, NCCL buffers
  double fragmentation = 0;  // caching-allocator slack
  double total() const {
    return params + grads + optimizer + fp8_weights + zero3_buffers + activations + logits +
           runtime + fragmentation;
  }
};

// Allowances (docs/cost-model.md, "Framework allowance"). Not fitted.
inline constexpr double kCudaContextBytes = 0.75e9;    // context + cuBLAS/TE workspaces
inline constexpr double kNcclBytesPerGroup = 0.25e9;   // buffers of one NCCL communicator
inline constexpr double kFragmentationFraction = 0.05; // of the dynamic (activation) bytes

}  // namespace paratune
