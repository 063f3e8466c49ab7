#include "cost/flops.h"

namespace paratune {

// Shapes: Megatron-LM megatron/training/training.py num_floating_point_operations (GQA-aware
// QKV, gated MLP x3, MoE top-k + shared experts, MLA, causal attention halved, logits 2hV per
// token forward). Attention: scores 2*s*d_qk and values 2*s*d_v per query per head.
// Keys one query attends to, averaged over the queries of a sequence and over the model's layers.
// Full attention: seq (non-causal) or seq/2 (causal, Megatron's halving). A sliding-window layer
// (GPT-OSS layer_types "sliding_attention") lets query i see keys i-w+1 .. i (transformers
// masking_utils.py sliding_window_causal_mask_function: kv_idx > q_idx - sliding_window), i.e.
// min(i+1, w) keys: averaged over i = 0 .. s-1 that is w - w(w-1)/(2s) for w < s (and the full
// layer's s/2 for w >= s); non-causal, min(w, s). Every layer gets the average (the layers
// alternate, so every pipeline stage of two or more layers has the model's mix).
double AttentionKeysPerQuery(const ModelSpec& m, double seq, bool causal) {
  const double full = causal ? 0.5 * seq : seq;
  if (m.sliding_window_layers <= 0 || m.sliding_window <= 0 || m.layers <= 0) return full;
  const double w = static_cast<double>(m.sliding_window);
  const double slide = w >= seq ? full : causal ? w - w * (w - 1) / (2 * seq) : w;
  const double share = static_cast<double>(m.sliding_window_layers) / static_cast<double>(m.layers);
  return (1 - share) * full + share * slide;
}

LayerFlops LayerForwardFlops(const ModelSpec& m, bool moe_layer, double tokens, double seq, bool causal) {
  LayerFlops f;
  const double h = static_cast<double>(m.hidden);
  const double nq = static_cast<double>(m.heads);
  if (m.attention == AttentionKind::kMla) {
    const double qk = static_cast<double>(m.qk_head_dim());
    const double q_proj =
        m.q_lora_rank > 0 ? h * m.q_lora_rank + static_cast<double>(m.q_lora_rank) * nq * qk : h * nq * qk;
    const double kv_proj = h * (m.kv_lora_rank + m.qk_rope_head_dim) +
                           static_cast<double>(m.kv_lora_rank) * nq * (m.qk_nope_head_dim + m.v_head_dim);
    f.qkv = 2 * tokens * (q_proj + kv_proj);
  } else {
    f.qkv = 2 * tokens * h * static_cast<double>((m.heads + 2 * m.kv_heads) * m.head_dim);
  }
  f.attention =
      2 * tokens * AttentionKeysPerQuery(m, seq, causal) * nq * static_cast<double>(m.qk_head_dim() + m.v_dim());
  f.out_proj = 2 * tokens * nq * static_cast<double>(m.v_dim()) * h;
  const double gemms = m.mlp == MlpKind::kGated ? 3 : 2;
  if (moe_layer) {
    f.router = 2 * tokens * h * static_cast<double>(m.experts);
    const double width = static_cast<double>(m.topk * m.moe_ffn_hidden + m.shared_experts * m.shared_ffn_hidden);
    f.mlp = 2 * gemms * tokens * h * width;
  } else {
    f.mlp = 2 * gemms * tokens * h * static_cast<double>(m.ffn_hidden);
  }
  return f;
}

double LogitsForwardFlops(const ModelSpec& m, double tokens) {
  return 2 * tokens * static_cast<double>(m.hidden) * static_cast<double>(m.vocab);
}

double ForwardFlopsPerSequence(const ModelSpec& m, double seq, bool causal) {
  const double dense = LayerForwardFlops(m, false, seq, seq, causal).total();
  const double moe = m.is_moe() ? LayerForwardFlops(m, true, seq, seq, causal).total() : 0;
  return static_cast<double>(m.dense_layers()) * dense + static_cast<double>(m.moe_layers()) * moe +
         LogitsForwardFlops(m, seq);
}

double ModelFlopsPerStep(const ModelSpec& m, const Training& t) {
  return 3.0 * static_cast<double>(t.global_batch) * ForwardFlopsPerSequence(m, static_cast<double>(t.seq));
}

double HardwareFlopsPerStep(const ModelSpec& m, const Training& t, Recompute r) {
  const double model = ModelFlopsPerStep(m, t);
  const double seq = static_cast<double>(t.seq);
  const double B = static_cast<double>(t.global_batch);
  if (r == Recompute::kFull) {
    // Full recompute repeats every layer's forward (not the logits): Narayanan 2021 Sec. 5.1.
    return model + B * (ForwardFlopsPerSequence(m, seq) - LogitsForwardFlops(m, seq));
  }
  if (r == Recompute::kSelective) {
    // Selective recompute repeats the core attention (Korthikanti et al. 2022, Sec. 4.2).
    double att = static_cast<double>(m.dense_layers()) * LayerForwardFlops(m, false, seq, seq).attention;
    if (m.is_moe()) att += static_cast<double>(m.moe_layers()) * LayerForwardFlops(m, true, seq, seq).attention;
    return model + B * att;
  }
  return model;
}

double NarayananFlopsPerIteration(double B, double s, double L, double h, double V, bool full_recompute) {
  if (full_recompute) return 96 * B * s * L * h * h * (1 + s / (6 * h) + V / (16 * L * h));
  return 72 * B * s * L * h * h * (1 + s / (6 * h) + V / (12 * L * h));
}

}  // namespace paratune
