// One GPU's memory by kind (MemoryBreakdown) and the one list of its kinds (kMemoryTerms): the
// totals, the estimate's JSON (`*_bytes`, docs/json.md), the CLI's table and the report's memory
// chart are all derived from this list. The cost model (cost/memory.h) fills it.
#pragma once

namespace paratune {

// One GPU's memory, by kind, in bytes. All but `runtime` and `fragmentation` are tensors the
// caching allocator hands out: what torch.cuda.max_memory_allocated counts (allocated()).
struct MemoryBreakdown {
  double params = 0;
  double grads = 0;
  double optimizer = 0;
  double fp8_weights = 0;    // Transformer Engine's cached FP8 weight copies (row + column)
  double zero3_buffers = 0;  // ZeRO-3/FSDP gathered parameters and gradients in flight
  double wgrad_buffers = 0;  // weight-gradient placeholders of fused accumulation (TE, Megatron)
  double activations = 0;    // kept for backward, all micro-batches in flight
  double logits = 0;         // last stage: logits and loss work space for one micro-batch
  double runtime = 0;        // CUDA context, cuBLAS/TE workspaces, NCCL buffers (not allocated)
  double fragmentation = 0;  // caching-allocator reserve beyond the allocated bytes
  double total() const;      // what must fit in the HBM
  double allocated() const;  // what max_memory_allocated counts
};

// The terms of MemoryBreakdown in report order: the one list that total(), allocated(), the
// JSON and the reports iterate.
struct MemoryTerm {
  const char* key;          // JSON key, without "_bytes"
  const char* label;        // short column name of the text reports
  const char* chart_label;  // its legend entry in the report's memory chart
  double MemoryBreakdown::*value;
  bool allocated;  // counted by torch.cuda.max_memory_allocated
};
inline constexpr MemoryTerm kMemoryTerms[] = {
    {"params", "params", "parameters", &MemoryBreakdown::params, true},
    {"grads", "grads", "gradients", &MemoryBreakdown::grads, true},
    {"optimizer", "optim", "optimizer", &MemoryBreakdown::optimizer, true},
    {"fp8_weights", "fp8 w", "FP8 weights", &MemoryBreakdown::fp8_weights, true},
    {"zero3_buffers", "zero3", "ZeRO-3 buffers", &MemoryBreakdown::zero3_buffers, true},
    {"wgrad_buffers", "wgrad", "wgrad buffers", &MemoryBreakdown::wgrad_buffers, true},
    {"activations", "activ", "activations", &MemoryBreakdown::activations, true},
    {"logits", "logits", "logits", &MemoryBreakdown::logits, true},
    {"runtime", "runtime", "runtime", &MemoryBreakdown::runtime, false},
    {"fragmentation", "frag", "fragmentation", &MemoryBreakdown::fragmentation, false},
};

inline double MemoryBreakdown::total() const {
  double t = 0;
  for (const MemoryTerm& term : kMemoryTerms) t += this->*term.value;
  return t;
}
inline double MemoryBreakdown::allocated() const {
  double t = 0;
  for (const MemoryTerm& term : kMemoryTerms)
    if (term.allocated) t += this->*term.value;
  return t;
}

}  // namespace paratune
