#include "model/model_spec.h"

#include <cmath>

#include <fmt/format.h>

#include "util/error.h"

namespace paratune {

namespace {

std::string Show(int64_t v) { return std::to_string(v); }
std::string Show(double v) { return fmt::format("{}", v); }
std::string Show(bool v) { return v ? "true" : "false"; }
std::string Show(const std::string& v) { return "'" + v + "'"; }
std::string Show(AttentionKind v) { return kAttentionKindNames.Name(v); }
std::string Show(MlpKind v) { return kMlpKindNames.Name(v); }
std::string Show(NormKind v) { return kNormKindNames.Name(v); }
std::string Show(PositionKind v) { return PositionKindName(v); }
std::string Show(RopeScalingKind v) { return RopeScalingName(v); }

}  // namespace

std::vector<std::string> ModelDifferences(const ModelSpec& a, const ModelSpec& b) {
  std::vector<std::string> out;
  auto field = [&](const char* name, const auto& x, const auto& y) {
    if (!(x == y)) out.push_back(std::string(name) + ": " + Show(x) + " vs " + Show(y));
  };
  // One line per member of ModelSpec and RopeScaling, in declaration order; the tests also
  // compare with the defaulted operator==, which catches a member missing here.
#define PARATUNE_FIELD(f) field(#f, a.f, b.f)
  PARATUNE_FIELD(name);
  PARATUNE_FIELD(architecture);
  PARATUNE_FIELD(layers);
  PARATUNE_FIELD(hidden);
  PARATUNE_FIELD(heads);
  PARATUNE_FIELD(kv_heads);
  PARATUNE_FIELD(head_dim);
  PARATUNE_FIELD(vocab);
  PARATUNE_FIELD(ffn_hidden);
  PARATUNE_FIELD(mlp);
  PARATUNE_FIELD(norm);
  PARATUNE_FIELD(attention);
  PARATUNE_FIELD(tied_embeddings);
  PARATUNE_FIELD(qkv_bias);
  PARATUNE_FIELD(linear_bias);
  PARATUNE_FIELD(o_bias);
  PARATUNE_FIELD(qk_norm);
  PARATUNE_FIELD(attention_sinks);
  PARATUNE_FIELD(router_bias);
  PARATUNE_FIELD(dropout);
  PARATUNE_FIELD(learned_positions);
  PARATUNE_FIELD(positions);
  PARATUNE_FIELD(max_position_embeddings);
  PARATUNE_FIELD(rope_theta);
  PARATUNE_FIELD(rotary_percent);
  PARATUNE_FIELD(rope_scaling.kind);
  PARATUNE_FIELD(rope_scaling.factor);
  PARATUNE_FIELD(rope_scaling.original_max_positions);
  PARATUNE_FIELD(rope_scaling.low_freq_factor);
  PARATUNE_FIELD(rope_scaling.high_freq_factor);
  PARATUNE_FIELD(rope_scaling.beta_fast);
  PARATUNE_FIELD(rope_scaling.beta_slow);
  PARATUNE_FIELD(rope_scaling.mscale);
  PARATUNE_FIELD(rope_scaling.mscale_all_dim);
  PARATUNE_FIELD(rope_scaling.attention_factor);
  PARATUNE_FIELD(q_lora_rank);
  PARATUNE_FIELD(kv_lora_rank);
  PARATUNE_FIELD(qk_nope_head_dim);
  PARATUNE_FIELD(qk_rope_head_dim);
  PARATUNE_FIELD(v_head_dim);
  PARATUNE_FIELD(experts);
  PARATUNE_FIELD(topk);
  PARATUNE_FIELD(moe_ffn_hidden);
  PARATUNE_FIELD(shared_experts);
  PARATUNE_FIELD(shared_ffn_hidden);
  PARATUNE_FIELD(shared_expert_gate);
  PARATUNE_FIELD(first_dense_layers);
  PARATUNE_FIELD(moe_layer_freq);
  PARATUNE_FIELD(mtp_layers);
  PARATUNE_FIELD(routing_groups);
  PARATUNE_FIELD(routing_group_topk);
  PARATUNE_FIELD(sliding_window);
  PARATUNE_FIELD(sliding_window_layers);
#undef PARATUNE_FIELD
  return out;
}

int64_t ModelSpec::moe_layers() const {
  if (!is_moe()) return 0;
  const int64_t after = layers - first_dense_layers;
  if (after <= 0) return 0;
  const int64_t freq = moe_layer_freq > 0 ? moe_layer_freq : 1;
  // Layers first_dense_layers + k*freq + (freq-1) are MoE (Qwen2-MoE decoder_sparse_step,
  // DeepSeek moe_layer_freq): one in every `freq`.
  return after / freq;
}

bool ModelSpec::is_moe_layer(int64_t i) const {
  if (!is_moe() || i < first_dense_layers) return false;
  const int64_t freq = moe_layer_freq > 0 ? moe_layer_freq : 1;
  return (i - first_dense_layers + 1) % freq == 0;
}

int64_t ModelSpec::qk_head_dim() const {
  return attention == AttentionKind::kMla ? qk_nope_head_dim + qk_rope_head_dim : head_dim;
}

int64_t ModelSpec::v_dim() const { return attention == AttentionKind::kMla ? v_head_dim : head_dim; }

int64_t NormParams(const ModelSpec& m) { return m.norm == NormKind::kLayerNorm ? 2 * m.hidden : m.hidden; }

// Attention block: projections, their biases, the pre-attention norm and Qwen3's QK norms.
// GQA shapes from the Llama/Mistral/Qwen modeling files in huggingface/transformers; MLA shapes
// from DeepSeek-V3's modeling_deepseek.py (q_a_proj, q_b_proj, kv_a_proj_with_mqa, kv_b_proj,
// o_proj, and the q_a/kv_a layernorms).
int64_t AttentionParamsPerLayer(const ModelSpec& m) {
  const int64_t h = m.hidden;
  int64_t p = NormParams(m);
  if (m.attention == AttentionKind::kMla) {
    const int64_t qk = m.qk_head_dim();
    if (m.q_lora_rank > 0)
      p += h * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * m.heads * qk;
    else
      p += h * m.heads * qk;
    p += h * (m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank;
    p += m.kv_lora_rank * m.heads * (m.qk_nope_head_dim + m.v_head_dim);
    p += m.heads * m.v_head_dim * h;
    return p;
  }
  const int64_t q = m.heads * m.head_dim;
  const int64_t kv = m.kv_heads * m.head_dim;
  p += h * (q + 2 * kv) + q * h;
  if (m.qkv_bias || m.linear_bias) p += q + 2 * kv;
  if (m.linear_bias || m.o_bias) p += h;
  if (m.qk_norm) p += 2 * m.head_dim;
  // GPT-OSS: GptOssAttention.sinks, one parameter per head (transformers
  // models/gpt_oss/modeling_gpt_oss.py).
  if (m.attention_sinks) p += m.heads;
  return p;
}

static int64_t MlpParams(const ModelSpec& m, int64_t ffn) {
  const int64_t gemms = m.mlp == MlpKind::kGated ? 3 : 2;
  int64_t p = gemms * m.hidden * ffn;
  if (m.linear_bias) p += (gemms - 1) * ffn + m.hidden;
  return p;
}

int64_t DenseMlpParamsPerLayer(const ModelSpec& m) { return MlpParams(m, m.ffn_hidden) + NormParams(m); }
int64_t RoutedExpertParams(const ModelSpec& m) { return MlpParams(m, m.moe_ffn_hidden); }
int64_t SharedExpertParamsPerLayer(const ModelSpec& m) { return m.shared_experts * MlpParams(m, m.shared_ffn_hidden); }
int64_t RouterParamsPerLayer(const ModelSpec& m) {
  // GPT-OSS: GptOssTopKRouter has a weight [experts, hidden] and a bias [experts].
  return m.hidden * m.experts + (m.router_bias ? m.experts : 0) + (m.shared_expert_gate ? m.hidden : 0);
}

int64_t ParamCounts::total() const {
  return embedding + output + attention + dense_mlp + router + routed_experts + shared_experts + moe_norms + final_norm;
}

int64_t ParamCounts::active(const ModelSpec& m) const {
  if (!m.is_moe() || m.experts == 0) return total();
  const int64_t active_routed = routed_experts / m.experts * m.topk;
  return total() - routed_experts + active_routed;
}

ParamCounts CountParams(const ModelSpec& m) {
  ParamCounts c;
  c.embedding = m.vocab * m.hidden + m.learned_positions * m.hidden;
  c.output = m.tied_embeddings ? 0 : m.vocab * m.hidden;
  c.attention = m.layers * AttentionParamsPerLayer(m);
  c.dense_mlp = m.dense_layers() * DenseMlpParamsPerLayer(m);
  const int64_t moe = m.moe_layers();
  c.router = moe * RouterParamsPerLayer(m);
  c.routed_experts = moe * m.experts * RoutedExpertParams(m);
  c.shared_experts = moe * SharedExpertParamsPerLayer(m);
  c.moe_norms = moe * NormParams(m);
  c.final_norm = NormParams(m);
  return c;
}

namespace {

// The checks of one model's fields, each error naming `where` and the config field.
struct FieldCheck {
  const std::string& where;
  void Positive(int64_t v, const char* field) const {
    if (v <= 0)
      throw InputError(where + ": field '" + field + "' must be a positive integer, got " + std::to_string(v));
  }
  // Upper bounds far beyond any model, so that counts and FLOPs stay finite and exact in
  // 64 bits and loops over layers end quickly.
  void AtMost(int64_t v, int64_t cap, const char* field) const {
    if (v > cap)
      throw InputError(where + ": field '" + field + "' is " + std::to_string(v) + ", beyond the supported " +
                       std::to_string(cap));
  }
};

// The sizes: positive where required, bounded everywhere.
void CheckSizes(const ModelSpec& m, const FieldCheck& c) {
  c.Positive(m.layers, "num_hidden_layers");
  c.Positive(m.hidden, "hidden_size");
  c.Positive(m.heads, "num_attention_heads");
  c.Positive(m.vocab, "vocab_size");
  c.AtMost(m.layers, kMaxLayers, "num_hidden_layers");
  c.AtMost(m.hidden, kMaxWidth, "hidden_size");
  c.AtMost(m.heads, kMaxWidth, "num_attention_heads");
  c.AtMost(m.kv_heads, kMaxWidth, "num_key_value_heads");
  c.AtMost(m.head_dim, kMaxWidth, "head_dim");
  c.AtMost(m.vocab, kMaxVocab, "vocab_size");
  c.AtMost(m.ffn_hidden, kMaxWidth, "intermediate_size");
  c.AtMost(m.moe_ffn_hidden, kMaxWidth, "moe_intermediate_size");
  c.AtMost(m.shared_ffn_hidden, kMaxWidth, "shared_expert_intermediate_size");
  c.AtMost(m.experts, kMaxExperts, "num_experts");
  c.AtMost(m.shared_experts, kMaxExperts, "n_shared_experts");
  c.AtMost(m.q_lora_rank, kMaxWidth, "q_lora_rank");
  c.AtMost(m.kv_lora_rank, kMaxWidth, "kv_lora_rank");
  c.AtMost(m.qk_nope_head_dim, kMaxWidth, "qk_nope_head_dim");
  c.AtMost(m.qk_rope_head_dim, kMaxWidth, "qk_rope_head_dim");
  c.AtMost(m.v_head_dim, kMaxWidth, "v_head_dim");
  c.AtMost(m.sliding_window, kMaxPositions, "sliding_window");
}

// Sliding windows, the position table and the rotary embedding.
void CheckPositions(const ModelSpec& m, const FieldCheck& c) {
  if (m.sliding_window_layers < 0 || m.sliding_window_layers > m.layers)
    throw InputError(c.where + ": " + std::to_string(m.sliding_window_layers) +
                     " sliding-window layers (layer_types) of " + std::to_string(m.layers) + " layers");
  if (m.sliding_window_layers > 0) c.Positive(m.sliding_window, "sliding_window");
  c.AtMost(m.learned_positions, kMaxVocab, "n_positions");
  c.AtMost(m.max_position_embeddings, kMaxPositions, "max_position_embeddings");
  if (m.max_position_embeddings < 0)
    throw InputError(c.where + ": field 'max_position_embeddings' must not be negative");
  if (m.positions == PositionKind::kLearned) c.Positive(m.learned_positions, "n_positions");
  if (m.positions != PositionKind::kLearned && m.learned_positions != 0)
    throw InputError(c.where + ": field 'n_positions' (a learned position table) needs learned positions");
  if (m.positions == PositionKind::kRotary) {
    // Finite and positive; the upper bounds keep the values printable as plain numbers.
    if (!(std::isfinite(m.rope_theta) && m.rope_theta > 0 && m.rope_theta < 1e18))
      throw InputError(c.where + ": field 'rope_theta' must be a positive number, got " + Show(m.rope_theta));
    if (!(m.rotary_percent > 0 && m.rotary_percent <= 1))
      throw InputError(c.where + ": field 'partial_rotary_factor' must be in (0, 1], got " + Show(m.rotary_percent));
    const RopeScaling& r = m.rope_scaling;
    if (r.kind != RopeScalingKind::kNone && !(std::isfinite(r.factor) && r.factor > 0 && r.factor < 1e9))
      throw InputError(c.where + ": field 'rope_scaling.factor' must be a positive number, got " + Show(r.factor));
    c.AtMost(r.original_max_positions, kMaxPositions, "rope_scaling.original_max_position_embeddings");
  }
}

// GQA's heads or MLA's ranks, and the dense MLP.
void CheckAttention(const ModelSpec& m, const FieldCheck& c) {
  if (m.attention == AttentionKind::kGqa) {
    c.Positive(m.kv_heads, "num_key_value_heads");
    c.Positive(m.head_dim, "head_dim");
    if (m.heads % m.kv_heads != 0)
      throw InputError(c.where + ": num_attention_heads (" + std::to_string(m.heads) +
                       ") is not a multiple of num_key_value_heads (" + std::to_string(m.kv_heads) + ")");
  } else {
    c.Positive(m.kv_lora_rank, "kv_lora_rank");
    c.Positive(m.qk_nope_head_dim, "qk_nope_head_dim");
    c.Positive(m.qk_rope_head_dim, "qk_rope_head_dim");
    c.Positive(m.v_head_dim, "v_head_dim");
  }
  if (m.dense_layers() > 0) c.Positive(m.ffn_hidden, "intermediate_size");
}

// The experts, their routing and the leading dense layers.
void CheckMoe(const ModelSpec& m, const FieldCheck& c) {
  c.Positive(m.topk, "num_experts_per_tok");
  c.Positive(m.moe_ffn_hidden, "moe_intermediate_size");
  if (m.topk > m.experts)
    throw InputError(c.where + ": num_experts_per_tok (" + std::to_string(m.topk) +
                     ") exceeds the number of experts (" + std::to_string(m.experts) + ")");
  if (m.shared_experts > 0) c.Positive(m.shared_ffn_hidden, "shared_expert_intermediate_size");
  if (m.first_dense_layers < 0 || m.first_dense_layers > m.layers)
    throw InputError(c.where + ": first_k_dense_replace must be between 0 and num_hidden_layers");
  if (m.routing_groups < 0 || m.routing_group_topk < 0 || m.routing_group_topk > m.routing_groups ||
      (m.routing_groups > 0 && (m.experts % m.routing_groups != 0 || m.routing_group_topk == 0)))
    throw InputError(c.where + ": topk_group must be between 1 and n_group, and n_group must divide the experts (" +
                     std::to_string(m.experts) + "), got n_group " + std::to_string(m.routing_groups) +
                     ", topk_group " + std::to_string(m.routing_group_topk));
}

}  // namespace

void ValidateModel(const ModelSpec& m, const std::string& where) {
  const FieldCheck c{where};
  CheckSizes(m, c);
  CheckPositions(m, c);
  CheckAttention(m, c);
  if (m.is_moe()) CheckMoe(m, c);
}

}  // namespace paratune
