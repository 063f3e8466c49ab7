#include "cost/activations.h"

namespace paratune {
namespace {

// Bytes per token, split by how tensor parallelism shares them.
struct PerToken {
  double replicated = 0;      // same on every TP rank unless sequence parallel shards them
  double tp_sharded = 0;      // split across TP ranks (heads or FFN columns)
  double scores_per_key = 0;  // bytes per query token per key position (non-flash attention)
};

PerToken LayerPerToken(const ModelSpec& m, bool moe_layer, const ActivationOptions& o) {
  const double e = 2;  // 16-bit activations (Korthikanti Sec. 4.1 assumes 16-bit)
  // Transformer Engine keeps the FP8 copy of a GEMM input for the weight-gradient GEMM.
  const double g = IsQuantized(o.precision) ? 1 : 2;
  const double h = static_cast<double>(m.hidden);
  const double nq = static_cast<double>(m.heads);
  PerToken p;
  // Korthikanti Sec. 4.1 terms, each named: two norm inputs (2sbh each), the QKV GEMM input
  // (2sbh), the MLP's first GEMM input (2sbh), and two dropout masks (sbh each).
  p.replicated += 2 * e * h + g * h + g * h;
  // Recomputed norms (--recompute-modules layernorm): their outputs, the QKV and first MLP
  // GEMMs' inputs, are freed after use and recomputed from the kept norm inputs.
  if (o.recomputes(RecomputeModule::kLayernorm)) p.replicated -= 2 * g * h;
  if (m.dropout) p.replicated += 2 * h;
  // Attention, sharded by heads: Q and K (4sbh for MHA) and V (2sbh) kept for the score and
  // value GEMMs; the attention output (2sbh) kept as the output projection's input.
  const double o_bytes = (e + (g < e ? g : 0)) * nq * static_cast<double>(m.v_dim());
  if (m.attention == AttentionKind::kMla) {
    // MLA: the low-rank latents (and their normalised copies, the up-projection inputs) are
    // computed by every TP rank; the per-head q, k, v are sharded.
    if (m.q_lora_rank > 0) p.replicated += (e + g) * static_cast<double>(m.q_lora_rank);
    p.replicated +=
        e * static_cast<double>(m.kv_lora_rank + m.qk_rope_head_dim) + g * static_cast<double>(m.kv_lora_rank);
    // The per-head q, k, v of the up-projections, unless those are recomputed (mla_up_proj).
    if (!o.recomputes(RecomputeModule::kMlaUpProj))
      p.tp_sharded += e * nq * (2 * static_cast<double>(m.qk_head_dim()) + static_cast<double>(m.v_head_dim));
  } else {
    p.tp_sharded += e * static_cast<double>((m.heads + 2 * m.kv_heads) * m.head_dim);
  }
  p.tp_sharded += o_bytes;
  // Scores: softmax output (2as^2b), dropout mask (as^2b) and dropout output (2as^2b); without
  // dropout only the softmax output. Never stored with FlashAttention or selective recompute.
  if (!o.flash_attention && !o.recomputes(RecomputeModule::kCoreAttn)) p.scores_per_key = (m.dropout ? 5.0 : 2.0) * nq;
  // MLP: plain keeps the activation input (8sbh for 4h) and output (8sbh); gated keeps the
  // fused gate/up output (2 x ffn) and the product (ffn, the second GEMM's input).
  auto mlp = [&](double ffn) { return m.mlp == MlpKind::kGated ? 2 * e * ffn + g * ffn : e * ffn + g * ffn; };
  if (moe_layer) {
    // A recomputed MoE block (moe) keeps only its input, counted above.
    if (o.recomputes(RecomputeModule::kMoe)) return p;
    // Router logits in FP32 (4 bytes per expert per token) on the (sequence-sharded) tokens.
    p.replicated += 4 * static_cast<double>(m.experts);
    if (m.shared_experts > 0 && !o.recomputes(RecomputeModule::kSharedExperts))
      p.tp_sharded += mlp(static_cast<double>(m.shared_experts * m.shared_ffn_hidden));
    // Routed experts: each token is copied to topk experts; the copy keeps the expert's first
    // GEMM input (g*h, replicated over expert-TP ranks) and the expert MLP tensors (split over
    // expert-TP). Spread per GPU below in LayerActivationBytes.
  } else if (!o.recomputes(RecomputeModule::kMlp)) {  // a recomputed MLP keeps only its input
    p.tp_sharded += mlp(static_cast<double>(m.ffn_hidden));
  }
  return p;
}

}  // namespace

double LayerWorkingBytes(const ModelSpec& m, bool moe_layer, double b, double seq, const ActivationOptions& o) {
  ActivationOptions full = o;
  full.recompute = Recompute::kNone;
  return LayerActivationBytes(m, moe_layer, b, seq, full);
}

double LayerActivationBytes(const ModelSpec& m, bool moe_layer, double b, double seq, const ActivationOptions& o) {
  const double s = seq / o.cp;  // tokens of each sequence on this GPU (context parallel)
  const double tokens = s * b;
  const double t = o.tp;
  if (o.recompute == Recompute::kFull) {
    // Only the layer input (2sbh), sharded along the sequence with SP (Korthikanti Sec. 4.3).
    const double input = 2 * tokens * static_cast<double>(m.hidden);
    return o.sp ? input / t : input;
  }
  const PerToken p = LayerPerToken(m, moe_layer, o);
  double bytes = tokens * (o.sp ? (p.replicated + p.tp_sharded) / t : p.replicated + p.tp_sharded / t);
  bytes += tokens * p.scores_per_key * s / t;
  if (moe_layer && !o.recomputes(RecomputeModule::kMoe)) {
    const double e = 2;
    const double g = IsQuantized(o.precision) ? 1 : 2;
    const double ffn = static_cast<double>(m.moe_ffn_hidden);
    // The first GEMM's output (the activation's input) in 16 bits, or in FP8 where cached so
    // (fp8_activation_cache); the activation's output (the second GEMM's input) unless the
    // activation is recomputed (moe_act).
    const double act_in = (o.fp8_activation_cache && IsQuantized(o.precision) ? 1 : e) * ffn;
    const double act_out = o.recomputes(RecomputeModule::kMoeAct) ? 0 : g * ffn;
    const double expert_mlp = (m.mlp == MlpKind::kGated ? 2 : 1) * act_in + act_out;
    // Token copies that land on this GPU: topk per token, over the tp ranks holding these
    // tokens, replicated etp times (the expert-TP group sees the same tokens).
    const double copies = tokens * static_cast<double>(m.topk) * o.etp / t;
    bytes += copies * (g * static_cast<double>(m.hidden) + expert_mlp / o.etp);
  }
  return bytes;
}

double KorthikantiActivationBytes(double s, double b, double h, double a, double t, KorthikantiCase c) {
  const double sbh = s * b * h;
  switch (c) {
    case KorthikantiCase::kNone:
      return sbh * (34 + 5 * a * s / h);
    case KorthikantiCase::kTp:
      return sbh * (10 + 24 / t + 5 * a * s / (h * t));
    case KorthikantiCase::kTpSp:
      return sbh / t * (34 + 5 * a * s / h);
    case KorthikantiCase::kTpSelective:
      return sbh * (10 + 24 / t);
    case KorthikantiCase::kTpSpSelective:
      return sbh / t * 34;
    case KorthikantiCase::kFull:
      return 2 * sbh;
  }
  return 0;
}

}  // namespace paratune
