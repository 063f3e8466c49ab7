// Model FLOPs of one training step, Megatron-LM convention (docs/cost-model.md, "FLOPs"):
// 2 FLOPs per multiply-add of every GEMM, backward = 2x forward, causal attention counts half of
// the s^2 score and value products. MFU uses these model FLOPs; HFU adds recomputation.
#pragma once

#include <cstdint>

#include "layout/layout.h"
#include "model/model_spec.h"

namespace paratune {

// Forward FLOPs of one layer for `tokens` tokens of sequences of length `seq`, unsharded.
struct LayerFlops {
  double qkv = 0;        // Q/K/V projections (GQA) or the MLA down/up projections
  double attention = 0;  // scores QK^T and softmax(QK^T)V
  double out_proj = 0;
  double mlp = 0;  // dense MLP, or shared + routed experts
  double router = 0;
  double total() const { return qkv + attention + out_proj + mlp + router; }
};

// Keys per query averaged over a sequence of length seq and over the layers: seq/2 causal, seq
// otherwise, less on sliding-window layers (ModelSpec::sliding_window; flops.cc).
double AttentionKeysPerQuery(const ModelSpec& m, double seq, bool causal = true);

// `causal` halves the attention term (Megatron, torchtitan); false counts the full s^2
// (Narayanan et al. 2021, PaLM, NeMo <= 25.07).
LayerFlops LayerForwardFlops(const ModelSpec& m, bool moe_layer, double tokens, double seq, bool causal = true);

// Forward FLOPs of the output projection (logits) for `tokens` tokens: 2*h*V per token.
double LogitsForwardFlops(const ModelSpec& m, double tokens);

// Forward FLOPs of the whole model for one sequence of length seq.
double ForwardFlopsPerSequence(const ModelSpec& m, double seq, bool causal = true);

// Model FLOPs of one optimizer step (3 x forward over global_batch sequences).
double ModelFlopsPerStep(const ModelSpec& m, const Training& t);

// Hardware FLOPs: model FLOPs plus the forward work that recomputation repeats.
double HardwareFlopsPerStep(const ModelSpec& m, const Training& t, Recompute r);

// Narayanan et al. 2021 (SC'21, arXiv 2104.04473, Sec. 5.1) closed form for GPT models:
// 72*B*s*L*h^2*(1 + s/(6h) + V/(12*L*h)) per iteration without recompute, or
// 96*B*s*L*h^2*(1 + s/(6h) + V/(16*L*h)) with full recompute. Used to pin the general counter.
double NarayananFlopsPerIteration(double B, double s, double L, double h, double V, bool full_recompute);

}  // namespace paratune
