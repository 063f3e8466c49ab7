#include "cost/flops.h"

namespace paratune {

// Shapes: Megatron-LM megatron/training/training.py num_floating_point_operations (GQA-aware
// QKV, gated MLP x3, MoE top-k + shared experts, MLA, causal attention halved, logits 2hV per
// token forward). Attention: scores 2*s*d_qk and values 2*s*d_v per query per head.
LayerFlops LayerForwardFlops(const ModelSpec& m, bool moe_layer, double tokens, double seq,
                             bool causal) {
  LayerFlops f;
  const double h = static_cast<double>(m.hidden);
  const double nq = static_cast<double>(m.heads);
  if (m.attention == AttentionKind::kMla) {
    const double qk = static_cast<double>(m.qk_head_dim());
    const double q_proj = m.q_lora_rank > 0
                              ? h * m.q_lora_rank + static_cast<double>(m.q_lora_rank) * nq * qk
                              : h * nq * qk;
    const double kv_proj = h * (m.kv_lora_rank + m.qk_rope_head_dim) +
                           static_cast<double>(m.kv_lora_rank) * nq * (m.qk_nope_head_dim + m.v_head_dim);
    f.qkv = 2 * tokens * (q_proj + kv_proj);
  } else {
    f.qkv = 2 * tokens * h * static_cast<double>((m.heads + 2 * m.kv_heads) * m.head_dim);
  }
  const double causal_factor = causal ? 0.5 : 1.0;
  f.attention = 2 * tokens * seq * nq * static_cast<double>(m.qk_head_dim() + m.v_dim()) * causal_factor;
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
