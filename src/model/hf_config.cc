#include "model/hf_config.h"

#include <algorithm>
#include <optional>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/json_fields.h"
#include "util/json_parse.h"
#include "util/text.h"

namespace paratune {
namespace {

using nlohmann::json;

// The fields of one JSON object of a config.json, on the one field reader (util/json_fields.h:
// the file, the path of a nested object's fields, 'rope_scaling.factor', and the message form).
class Fields {
 public:
  explicit Fields(const JsonView& v) : v_(v) {}

  const std::string& where() const { return v_.root().file(); }
  std::string Name(const char* key) const { return v_.PathOf(key); }
  bool has(const char* key) const { return v_.node().contains(key) && !v_.node().at(key).is_null(); }
  // The fields of the nested object at `key` (which Object() found).
  Fields Child(const std::string& key) const { return Fields(v_.Child(key)); }

  int64_t Int(const char* key) const {
    if (!has(key)) Missing(key);
    return AsInt(At(key), key);
  }
  int64_t Int(const char* key, int64_t fallback) const { return has(key) ? AsInt(At(key), key) : fallback; }
  double Num(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const json& v = At(key);
    if (!v.is_number()) v_.Fail(key, "must be a number");
    return v.get<double>();
  }
  // A required positive number (rope_theta, rope_scaling.factor).
  double PositiveNum(const char* key) const {
    if (!has(key)) Missing(key);
    return PositiveNum(key, 0);
  }
  double PositiveNum(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const double x = Num(key, 0);
    if (!(x > 0)) v_.Fail(key, "must be a positive number, got " + Shown(At(key).dump()));
    return x;
  }
  bool Bool(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const json& v = At(key);
    if (!v.is_boolean()) v_.Fail(key, "must be true or false");
    return v.get<bool>();
  }
  std::string Str(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    const json& v = At(key);
    if (!v.is_string()) v_.Fail(key, "must be a string");
    return v.get<std::string>();
  }
  // A nested object (rope_scaling); absent or null gives nullptr.
  const json* Object(const char* key) const {
    if (!has(key)) return nullptr;
    const json& v = At(key);
    if (!v.is_object()) v_.Fail(key, "must be an object");
    return &v;
  }
  // A list of integers (Qwen's mlp_only_layers); absent gives an empty list.
  std::vector<int64_t> IntList(const char* key) const {
    std::vector<int64_t> out;
    if (!has(key)) return out;
    const json& v = At(key);
    if (!v.is_array()) v_.Fail(key, "must be a list");
    for (const json& e : v) out.push_back(AsInt(e, key));
    return out;
  }

 private:
  const json& At(const char* key) const { return v_.node().at(key); }
  [[noreturn]] void Missing(const char* key) const {
    throw InputError(where() + ": missing field '" + Name(key) + "'");
  }

  int64_t AsInt(const json& v, const char* key) const {
    if (v.is_number_integer()) {
      if (v.is_number_unsigned() && v.get<uint64_t>() > (uint64_t{1} << 53)) v_.Fail(key, "is too large");
      const int64_t x = v.get<int64_t>();
      if (x < 0 || x > (int64_t{1} << 53)) v_.Fail(key, "must be a non-negative integer, got " + std::to_string(x));
      return x;
    }
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (d >= 0 && d < 9e15 && d == static_cast<double>(static_cast<int64_t>(d))) return static_cast<int64_t>(d);
    }
    v_.Fail(key,
            "must be a non-negative integer, got " + (v.is_primitive() ? Shown(v.dump()) : std::string(v.type_name())));
  }

  JsonView v_;
};

// hidden / heads as the head width when the config gives none; a remainder is an error
// (transformers' configs validate hidden_size % num_attention_heads == 0, e.g.
// LlamaConfig.validate_architecture in models/llama/configuration_llama.py).
int64_t DerivedHeadDim(const Fields& f, int64_t hidden, int64_t heads, const char* hidden_key, const char* heads_key) {
  if (heads <= 0) return 0;  // ValidateModel names the field
  if (hidden % heads != 0)
    throw InputError(f.where() + ": field '" + hidden_key + "' (" + std::to_string(hidden) + ") is not divisible by '" +
                     heads_key + "' (" + std::to_string(heads) + "); give 'head_dim' explicitly");
  return hidden / heads;
}

// Defaults of one architecture's position settings, from its transformers configuration file
// (cited where ReadRope is called).
struct RopeDefaults {
  double theta;           // rope_theta when absent
  int64_t max_positions;  // max_position_embeddings when absent
  double partial = 1.0;   // partial_rotary_factor when absent
  const char* theta_key = "rope_theta";
  const char* partial_key = "partial_rotary_factor";
};

// The rope_scaling / rope_parameters block. Required and optional keys and their defaults
// follow transformers' src/transformers/modeling_rope_utils.py (_validate_*_parameters and
// _compute_*_parameters).
RopeScaling ReadRopeScaling(const Fields& r, const ModelSpec& m) {
  // "rope_type", or the legacy "type" (modeling_rope_utils.py rope_config_validation).
  std::string type = r.has("rope_type") ? r.Str("rope_type", "") : r.Str("type", "");
  if (type.empty()) {
    // transformers v5 standardize_rope_params takes "default"; a factor without a type would be
    // dropped there, so it is an error here.
    if (r.has("factor")) throw InputError(r.where() + ": missing field '" + r.Name("rope_type") + "'");
    type = "default";
  }
  RopeScaling s;
  if (type == "default") return s;
  if (type == "linear" || type == "dynamic") {
    s.kind = type == "linear" ? RopeScalingKind::kLinear : RopeScalingKind::kDynamic;
    s.factor = r.PositiveNum("factor");
  } else if (type == "yarn") {
    s.kind = RopeScalingKind::kYarn;
    s.factor = r.PositiveNum("factor");
    // _compute_yarn_parameters: original_max_position_embeddings or max_position_embeddings;
    // beta_fast/beta_slow default to 32/1 (the YaRN paper's values).
    s.original_max_positions = r.Int("original_max_position_embeddings", m.max_position_embeddings);
    s.beta_fast = r.PositiveNum("beta_fast", 32);
    s.beta_slow = r.PositiveNum("beta_slow", 1);
    // DeepSeek's attention factor get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)
    // with get_mscale(s, m) = 0.1 * m * ln(s) + 1; absent, transformers uses get_mscale(factor),
    // which is mscale 1 over mscale_all_dim 0 (get_mscale(s, 0) = 1).
    s.mscale = r.Num("mscale", 1.0);
    s.mscale_all_dim = r.Num("mscale_all_dim", 0.0);
    s.attention_factor = r.PositiveNum("attention_factor", 0);
  } else if (type == "llama3") {
    // _validate_llama3_parameters: all four keys are required. _compute_llama3_parameters
    // divides by high_freq_factor - low_freq_factor in the band between the two wavelengths, so
    // high below low is an error here (transformers only warns).
    s.kind = RopeScalingKind::kLlama3;
    s.factor = r.PositiveNum("factor");
    s.low_freq_factor = r.PositiveNum("low_freq_factor");
    s.high_freq_factor = r.PositiveNum("high_freq_factor");
    s.original_max_positions = r.Int("original_max_position_embeddings");
    // Equal factors (Llama 4 Scout ships 1 and 1) leave the smoothed middle band empty: every
    // frequency is either kept or divided by the factor, and nothing divides by zero.
    if (s.high_freq_factor < s.low_freq_factor)
      throw InputError(r.where() + ": field '" + r.Name("high_freq_factor") + "' must be at least '" +
                       r.Name("low_freq_factor") + "'");
  } else if (type == "longrope") {
    // _validate_longrope_parameters: short_factor and long_factor lists are required.
    s.kind = RopeScalingKind::kLongRope;
    for (const char* key : {"short_factor", "long_factor"})
      if (!r.has(key)) throw InputError(r.where() + ": missing field '" + r.Name(key) + "'");
    s.factor = r.PositiveNum("factor", 1.0);
    s.original_max_positions = r.Int("original_max_position_embeddings", m.max_position_embeddings);
    s.attention_factor = r.PositiveNum("attention_factor", 0);
  } else {
    throw InputError(r.where() + ": field '" + r.Name("rope_type") + "' is " + Quote(type) +
                     "; supported: default, linear, dynamic, yarn, longrope, llama3");
  }
  return s;
}

// Rotary positions: max_position_embeddings, rope_theta, partial_rotary_factor and the scaling.
// transformers v5 (modeling_rope_utils.py RotaryEmbeddingConfigMixin.convert_rope_params_to_dict)
// takes rope_scaling when it is set, else rope_parameters, and rope_theta from that block, else
// the top-level key, else the architecture's default; v4 configs have top-level keys only.
void ReadRope(const Fields& f, ModelSpec& m, const RopeDefaults& d) {
  m.positions = PositionKind::kRotary;
  m.max_position_embeddings = f.Int("max_position_embeddings", d.max_positions);
  const json* block = f.Object("rope_scaling");
  std::string block_name = "rope_scaling";
  if (block == nullptr || block->empty()) {
    block = f.Object("rope_parameters");
    block_name = "rope_parameters";
  }
  std::optional<Fields> r;
  if (block != nullptr) r.emplace(f.Child(block_name));
  // An architecture's own key (GPT-NeoX's rotary_emb_base, rotary_pct) first, then the common one.
  const char* theta_key = f.has(d.theta_key) ? d.theta_key : "rope_theta";
  m.rope_theta = r && r->has("rope_theta") ? r->PositiveNum("rope_theta") : f.PositiveNum(theta_key, d.theta);
  const bool nested_partial = r && r->has("partial_rotary_factor");
  const Fields& pf = nested_partial ? *r : f;
  const char* pkey = nested_partial         ? "partial_rotary_factor"
                     : f.has(d.partial_key) ? d.partial_key
                                            : "partial_rotary_factor";
  m.rotary_percent = pf.PositiveNum(pkey, d.partial);
  if (m.rotary_percent > 1) throw InputError(f.where() + ": field '" + pf.Name(pkey) + "' must be at most 1");
  if (r) m.rope_scaling = ReadRopeScaling(*r, m);
}

// The fields Llama-like configs share. `derive_head_dim` is false for MLA, whose head widths
// are their own fields.
void ReadLlamaLike(const Fields& f, ModelSpec& m, bool derive_head_dim = true) {
  m.layers = f.Int("num_hidden_layers");
  m.hidden = f.Int("hidden_size");
  m.heads = f.Int("num_attention_heads");
  m.kv_heads = f.Int("num_key_value_heads", m.heads);
  if (f.has("head_dim"))
    m.head_dim = f.Int("head_dim");
  else if (derive_head_dim)
    m.head_dim = DerivedHeadDim(f, m.hidden, m.heads, "hidden_size", "num_attention_heads");
  m.vocab = f.Int("vocab_size");
  m.ffn_hidden = f.Int("intermediate_size", 0);
  m.tied_embeddings = f.Bool("tie_word_embeddings", false);
  m.qkv_bias = f.Bool("attention_bias", false);
  m.mlp = MlpKind::kGated;
  m.norm = NormKind::kRmsNorm;
  m.dropout = f.Num("attention_dropout", 0.0) > 0;
}

// Dense layers of Qwen-MoE models: mlp_only_layers, plus those skipped by decoder_sparse_step.
void ReadQwenMoe(const Fields& f, ModelSpec& m) {
  m.experts = f.Int("num_experts");
  m.topk = f.Int("num_experts_per_tok");
  m.moe_ffn_hidden = f.Int("moe_intermediate_size");
  const int64_t step = f.Int("decoder_sparse_step", 1);
  const std::vector<int64_t> dense = f.IntList("mlp_only_layers");
  if (m.layers > kMaxLayers)
    throw InputError(f.where() + ": field 'num_hidden_layers' is " + std::to_string(m.layers) +
                     ", beyond the supported " + std::to_string(kMaxLayers));
  if (!dense.empty() || step != 1) {
    // Transformers puts an MoE block on layer i when i is not in mlp_only_layers and
    // (i + 1) % decoder_sparse_step == 0. Our ModelSpec expresses "first k dense, then one in
    // every freq"; other patterns are folded into a count of MoE layers.
    int64_t moe = 0;
    for (int64_t i = 0; i < m.layers; ++i) {
      const bool only_mlp = std::find(dense.begin(), dense.end(), i) != dense.end();
      if (!only_mlp && step > 0 && (i + 1) % step == 0) ++moe;
    }
    m.first_dense_layers = m.layers - moe;
    m.moe_layer_freq = 1;
  }
}

// One reader per architecture: the fields its configuration class defines, with the defaults of
// that class. Position defaults: rope_theta absent is RotaryEmbeddingConfigMixin.default_theta =
// 10000.0 (src/transformers/modeling_rope_utils.py) unless the model's configuration class
// overrides it; max_position_embeddings absent is the configuration class's default. Files are
// under src/transformers/models/ in huggingface/transformers.

void ReadLlama(const Fields& f, const json&, ModelSpec& m) {
  ReadLlamaLike(f, m);
  ReadRope(f, m, {10000.0, 2048});  // llama/configuration_llama.py: max_position_embeddings = 2048
}

void ReadMistral(const Fields& f, const json&, ModelSpec& m) {
  ReadLlamaLike(f, m);
  ReadRope(f, m, {10000.0, 4096 * 32});  // mistral/configuration_mistral.py: 4096 * 32
}

void ReadQwen2(const Fields& f, const json&, ModelSpec& m) {
  ReadLlamaLike(f, m);
  m.qkv_bias = true;                 // Qwen2Attention: q/k/v_proj have bias=True, o_proj bias=False
  ReadRope(f, m, {10000.0, 32768});  // qwen2/configuration_qwen2.py: 32768
}

void ReadQwen3(const Fields& f, const json&, ModelSpec& m) {
  ReadLlamaLike(f, m);
  m.qk_norm = true;
  ReadRope(f, m, {10000.0, 32768});  // qwen3/configuration_qwen3.py: 32768
}

// Routed experts in every layer, no shared experts (Mixtral, Grok-1): the count under
// `experts_key`, top-k, and the experts' width, which these configs give as intermediate_size.
void ReadEveryLayerExperts(const Fields& f, const char* experts_key, ModelSpec& m) {
  m.experts = f.Int(experts_key);
  m.topk = f.Int("num_experts_per_tok");
  m.moe_ffn_hidden = f.Int("intermediate_size");
  m.ffn_hidden = 0;
}

void ReadMixtral(const Fields& f, const json&, ModelSpec& m) {
  ReadLlamaLike(f, m);
  // mixtral/configuration_mixtral.py: default_theta = 1000000.0, max_position_embeddings 4096 * 32
  ReadRope(f, m, {1000000.0, 4096 * 32});
  ReadEveryLayerExperts(f, "num_local_experts", m);
}

void ReadQwen2Moe(const Fields& f, const json&, ModelSpec& m) {
  ReadLlamaLike(f, m);
  m.qkv_bias = true;
  ReadRope(f, m, {10000.0, 32768});  // qwen2_moe/configuration_qwen2_moe.py: 32768
  ReadQwenMoe(f, m);
  const int64_t shared = f.Int("shared_expert_intermediate_size", 0);
  if (shared > 0) {
    m.shared_experts = 1;
    m.shared_ffn_hidden = shared;
    m.shared_expert_gate = true;
  }
}

void ReadQwen3Moe(const Fields& f, const json&, ModelSpec& m) {
  ReadLlamaLike(f, m);
  m.qk_norm = true;
  ReadRope(f, m, {10000.0, 32768});  // qwen3_moe/configuration_qwen3_moe.py: 32768
  ReadQwenMoe(f, m);
}

// DeepSeek's MoE block (n_routed_experts > 0): routed and shared experts, dense first layers,
// group-limited routing and V3's router.
void ReadDeepseekMoe(const Fields& f, ModelSpec& m) {
  m.topk = f.Int("num_experts_per_tok");
  m.moe_ffn_hidden = f.Int("moe_intermediate_size");
  // DeepseekV3MoE (and V2's DeepseekV2MoE) builds the shared experts as one MLP of width
  // moe_intermediate_size * n_shared_experts, and so does Megatron-LM
  // (--moe-shared-expert-intermediate-size): one shared expert of that width.
  const int64_t n_shared = f.Int("n_shared_experts", 0);
  m.shared_experts = n_shared > 0 ? 1 : 0;
  if (__builtin_mul_overflow(m.moe_ffn_hidden, n_shared, &m.shared_ffn_hidden))
    throw InputError(f.where() + ": fields 'moe_intermediate_size' * 'n_shared_experts' are too large");
  if (n_shared == 0) m.shared_ffn_hidden = 0;
  m.first_dense_layers = f.Int("first_k_dense_replace", 0);
  m.moe_layer_freq = f.Int("moe_layer_freq", 1);
  // Group-limited routing (topk_method "group_limited_greedy" / "noaux_tc").
  m.routing_groups = f.Int("n_group", 0);
  m.routing_group_topk = f.Int("topk_group", 0);
  // DeepseekV3's router: sigmoid scores, a per-expert bias under "noaux_tc", scaled gates.
  m.router_sigmoid = f.Str("scoring_func", "softmax") == "sigmoid";
  m.router_expert_bias = f.Str("topk_method", "") == "noaux_tc";
  m.router_topk_scaling = f.PositiveNum("routed_scaling_factor", 0);
}

// DeepSeek-V2 and V3: multi-head latent attention, RoPE over qk_rope_head_dim only;
// max_position_embeddings 4096 (deepseek_v3/configuration_deepseek_v3.py) or 2048
// (deepseek_v2/configuration_deepseek_v2.py).
void ReadDeepseek(const Fields& f, ModelSpec& m, int64_t max_positions) {
  ReadLlamaLike(f, m, /*derive_head_dim=*/false);
  m.attention = AttentionKind::kMla;
  ReadRope(f, m, {10000.0, max_positions});
  m.q_lora_rank = f.Int("q_lora_rank", 0);
  m.kv_lora_rank = f.Int("kv_lora_rank");
  m.qk_nope_head_dim = f.Int("qk_nope_head_dim");
  m.qk_rope_head_dim = f.Int("qk_rope_head_dim");
  m.v_head_dim = f.Int("v_head_dim");
  m.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
  m.kv_heads = m.heads;
  m.experts = f.Int("n_routed_experts", 0);
  if (m.experts > 0) ReadDeepseekMoe(f, m);
  m.mtp_layers = f.Int("num_nextn_predict_layers", 0);
}
void ReadDeepseekV3(const Fields& f, const json&, ModelSpec& m) { ReadDeepseek(f, m, 4096); }
void ReadDeepseekV2(const Fields& f, const json&, ModelSpec& m) { ReadDeepseek(f, m, 2048); }

void ReadGpt2(const Fields& f, const json&, ModelSpec& m) {
  m.layers = f.Int("n_layer");
  m.hidden = f.Int("n_embd");
  m.heads = f.Int("n_head");
  m.kv_heads = m.heads;
  m.head_dim = DerivedHeadDim(f, m.hidden, m.heads, "n_embd", "n_head");
  m.vocab = f.Int("vocab_size");
  m.ffn_hidden = f.Int("n_inner", 4 * m.hidden);
  // gpt2/configuration_gpt2.py: n_positions = 1024, a learned table (GPT2Model.wpe).
  m.positions = PositionKind::kLearned;
  m.learned_positions = f.Int("n_positions", 1024);
  m.max_position_embeddings = m.learned_positions;
  m.rope_theta = 0;
  m.mlp = MlpKind::kPlain;
  m.norm = NormKind::kLayerNorm;
  m.linear_bias = true;
  m.tied_embeddings = f.Bool("tie_word_embeddings", true);
  m.dropout = f.Num("resid_pdrop", 0.1) > 0 || f.Num("attn_pdrop", 0.1) > 0;
}

void ReadGptNeox(const Fields& f, const json&, ModelSpec& m) {
  ReadLlamaLike(f, m);
  m.kv_heads = m.heads;
  // gpt_neox/configuration_gpt_neox.py: rotary_emb_base (v4; v5 rope_theta) 10000,
  // rotary_pct (v5 partial_rotary_factor) 0.25, max_position_embeddings 2048.
  ReadRope(f, m, {10000.0, 2048, 0.25, "rotary_emb_base", "rotary_pct"});
  m.mlp = MlpKind::kPlain;
  m.norm = NormKind::kLayerNorm;
  m.linear_bias = true;
  m.dropout = f.Num("hidden_dropout", 0.0) > 0 || f.Num("attention_dropout", 0.0) > 0;
}

void ReadMpt(const Fields& f, const json&, ModelSpec& m) {
  m.layers = f.Int("n_layers");
  m.hidden = f.Int("d_model");
  m.heads = f.Int("n_heads");
  m.kv_heads = m.heads;
  m.head_dim = DerivedHeadDim(f, m.hidden, m.heads, "d_model", "n_heads");
  m.vocab = f.Int("vocab_size");
  // mpt/modeling_mpt.py: MptModel always adds ALiBi biases (build_alibi_bias over
  // max_seq_len, default 2048 in configuration_mpt.py) and has no position table.
  m.positions = PositionKind::kAlibi;
  m.max_position_embeddings = f.Int("max_seq_len", 2048);
  m.rope_theta = 0;
  if (__builtin_mul_overflow(f.Int("expansion_ratio", 4), m.hidden, &m.ffn_hidden))
    throw InputError(f.where() + ": fields 'expansion_ratio' * 'd_model' are too large");
  m.mlp = MlpKind::kPlain;
  m.norm = NormKind::kLayerNorm;
  m.linear_bias = !f.Bool("no_bias", true);
  m.tied_embeddings = true;  // MPT reuses the token embedding as the output head
  // MPT's low-precision LayerNorm has no bias when no_bias is set: count it as RMSNorm-sized.
  if (!m.linear_bias) m.norm = NormKind::kRmsNorm;
  m.dropout = f.Num("resid_pdrop", 0.0) > 0 || f.Num("emb_pdrop", 0.0) > 0;
}

// GptOssConfig's layer_types: how many layers use sliding-window attention (default: the even
// layers).
int64_t SlidingWindowLayers(const Fields& f, const json& j, int64_t layers) {
  if (!f.has("layer_types")) return (layers + 1) / 2;
  const json& types = j.at("layer_types");
  if (!types.is_array() || static_cast<int64_t>(types.size()) != layers)
    throw InputError(f.where() + ": field 'layer_types' must be a list of num_hidden_layers (" +
                     std::to_string(layers) + ") strings");
  int64_t sliding = 0;
  for (const json& t : types) {
    if (!t.is_string()) throw InputError(f.where() + ": field 'layer_types' must be a list of strings");
    const std::string k = t.get<std::string>();
    if (k == "sliding_attention")
      ++sliding;
    else if (k != "full_attention")
      throw InputError(f.where() + ": field 'layer_types' has " + Quote(k) +
                       "; supported: sliding_attention, full_attention");
  }
  return sliding;
}

// gpt_oss/configuration_gpt_oss.py and modeling_gpt_oss.py (transformers): q/k/v/o
// projections with bias (attention_bias, default True), one sink logit per head, a router
// with bias, num_local_experts experts of width intermediate_size whose gate_up and down
// projections carry biases, in every layer; layer_types alternates sliding_attention
// (window sliding_window, default 128) and full_attention.
void ReadGptOss(const Fields& f, const json& j, ModelSpec& m) {
  ReadLlamaLike(f, m);
  ReadRope(f, m, {150000.0, 131072});  // configuration_gpt_oss.py: rope_theta 150000.0, 131072
  m.linear_bias = f.Bool("attention_bias", true);
  m.qkv_bias = false;
  m.attention_sinks = true;
  m.router_bias = true;
  m.experts = f.Int("num_local_experts");
  m.topk = f.Int("num_experts_per_tok", f.Int("experts_per_token", 4));
  m.moe_ffn_hidden = f.Int("intermediate_size");
  m.ffn_hidden = 0;
  m.sliding_window = f.Int("sliding_window", 128);
  m.sliding_window_layers = SlidingWindowLayers(f, j, m.layers);
}

// llama4/configuration_llama4.py (Llama4TextConfig) and modeling_llama4.py: every layer's
// attention as Llama's (attention_bias), QK L2 norm without weights (use_qk_norm), dense
// layers an MLP of intermediate_size_mlp, MoE layers num_local_experts experts of
// intermediate_size (gate_up_proj, down_proj) plus one shared expert of intermediate_size
// and a bias-free router; layer i is MoE when i is in moe_layers, by default
// range(interleave_moe_layer_step - 1, layers, interleave_moe_layer_step): the last of
// every group of interleave_moe_layer_step layers.
void ReadLlama4Text(const Fields& t, ModelSpec& m) {
  ReadLlamaLike(t, m);
  ReadRope(t, m, {500000.0, 4096 * 32});  // Llama4TextConfig: rope_theta 500000, 4096 * 32
  m.qk_norm = false;                      // Llama4TextL2Norm has no weight
  m.experts = t.Int("num_local_experts", 16);
  m.topk = t.Int("num_experts_per_tok", 1);
  m.moe_ffn_hidden = t.Int("intermediate_size", 8192);
  m.ffn_hidden = t.Int("intermediate_size_mlp", 16384);
  m.shared_experts = 1;
  m.shared_ffn_hidden = m.moe_ffn_hidden;
  m.moe_layer_freq = t.Int("interleave_moe_layer_step", 1);
  if (m.moe_layer_freq <= 0)
    throw InputError(t.where() + ": field '" + t.Name("interleave_moe_layer_step") + "' must be a positive integer");
  const std::vector<int64_t> listed = t.IntList("moe_layers");
  if (!listed.empty()) {
    // An explicit list: the pattern must be the interleaved one ModelSpec expresses.
    std::vector<int64_t> expected;
    for (int64_t i = m.moe_layer_freq - 1; i < m.layers && i <= kMaxLayers; i += m.moe_layer_freq)
      expected.push_back(i);
    if (listed != expected)
      throw InputError(t.where() + ": field '" + t.Name("moe_layers") +
                       "' is not every interleave_moe_layer_step-th layer; other patterns are not supported");
  }
}
void ReadLlama4CausalLm(const Fields& f, const json&, ModelSpec& m) { ReadLlama4Text(f, m); }
// Llama4ForConditionalGeneration nests the decoder's fields in text_config (and the vision
// tower's in vision_config, which paratune does not model: a text-only training cost).
void ReadLlama4Conditional(const Fields& f, const json&, ModelSpec& m) {
  const json* t = f.Object("text_config");
  if (t == nullptr) throw InputError(f.where() + ": missing field 'text_config'");
  ReadLlama4Text(f.Child("text_config"), m);
}

// InternLM (remote code of internlm/internlm-7b: configuration_internlm.py InternLMConfig,
// modeling_internlm.py InternLMAttention): Llama's layout with q_proj, k_proj, v_proj and
// o_proj all biased when `bias` (default True), the MLP without biases; max_position_embeddings
// 2048. Rotary base: `rotary.base` in later revisions (default 10000; its "dynamic" type
// rescales only beyond the trained length, a no-op for training within it).
void ReadInternLm(const Fields& f, const json&, ModelSpec& m) {
  ReadLlamaLike(f, m);
  ReadRope(f, m, {10000.0, 2048});
  m.qkv_bias = f.Bool("bias", true);
  m.o_bias = m.qkv_bias;
  if (f.Object("rotary")) m.rope_theta = f.Child("rotary").PositiveNum("base", m.rope_theta);
}

// Grok-1 (xai-org/grok-1 model.py; the transformers port hpcai-tech/grok-1,
// modeling_grok1.py): grouped-query attention without biases, num_experts experts of width
// intermediate_size (GELU-gated: linear, linear_v, linear_1, three matrices) with top
// num_experts_per_tok routing in every layer, the input embedding reused as the output head
// (tie_word_embeddings, default True), RoPE with base 10000 over 8192 positions. Its extra
// post-attention and post-MoE RMSNorms (2 x hidden per layer, 0.8M of 314B) are not counted.
void ReadGrok1(const Fields& f, const json&, ModelSpec& m) {
  ReadLlamaLike(f, m);
  ReadRope(f, m, {10000.0, 8192});
  m.tied_embeddings = f.Bool("tie_word_embeddings", true);
  ReadEveryLayerExperts(f, "num_experts", m);
}

void ReadNemotron(const Fields& f, const json&, ModelSpec& m) {
  ReadLlamaLike(f, m);
  // nemotron/configuration_nemotron.py: partial_rotary_factor 0.5, rope_theta 10000.0,
  // max_position_embeddings 4096 (a "rope_percent" key is not read by transformers).
  ReadRope(f, m, {10000.0, 4096, 0.5});
  m.mlp = MlpKind::kPlain;        // squared-ReLU, up_proj and down_proj only
  m.norm = NormKind::kLayerNorm;  // NemotronLayerNorm1P: weight and bias
}

// The one list of architectures: SupportedArchitectures() and the dispatch come from it.
struct Architecture {
  const char* name;
  void (*read)(const Fields& f, const json& j, ModelSpec& m);
};
constexpr Architecture kArchitectures[] = {
    {"LlamaForCausalLM", ReadLlama},
    {"MistralForCausalLM", ReadMistral},
    {"Qwen2ForCausalLM", ReadQwen2},
    {"Qwen3ForCausalLM", ReadQwen3},
    {"MixtralForCausalLM", ReadMixtral},
    {"Qwen2MoeForCausalLM", ReadQwen2Moe},
    {"Qwen3MoeForCausalLM", ReadQwen3Moe},
    {"DeepseekV3ForCausalLM", ReadDeepseekV3},
    {"DeepseekV2ForCausalLM", ReadDeepseekV2},
    {"GPT2LMHeadModel", ReadGpt2},
    {"GPTNeoXForCausalLM", ReadGptNeox},
    {"MPTForCausalLM", ReadMpt},
    {"NemotronForCausalLM", ReadNemotron},
    {"GptOssForCausalLM", ReadGptOss},
    {"Llama4ForConditionalGeneration", ReadLlama4Conditional},
    {"Llama4ForCausalLM", ReadLlama4CausalLm},
    {"InternLMForCausalLM", ReadInternLm},
    {"Grok1ModelForCausalLM", ReadGrok1},
};

// The JSON of a config.json, or an InputError with the line of a syntax error.
json ParseConfigJson(std::string_view text, const std::string& where) {
  try {
    return ParseJson(text, where);  // nesting bounded, duplicate keys refused
  } catch (const json::parse_error& e) {
    // Report a line number: count newlines up to the failing byte.
    const size_t byte = std::min<size_t>(e.byte, text.size());
    const size_t line = 1 + std::count(text.begin(), text.begin() + byte, '\n');
    std::string what = e.what();
    const size_t colon = what.find("syntax error");
    throw InputError(where + ":" + std::to_string(line) +
                     ": invalid JSON: " + (colon == std::string::npos ? what : what.substr(colon)));
  } catch (const json::out_of_range& e) {  // a number beyond double, e.g. 1e400 (no position given)
    const std::string what = e.what();
    throw InputError(where + ": invalid JSON: " + what.substr(what.find(']') + 2));
  }
}

// The first of `architectures`, which must be one of kArchitectures.
const Architecture& ArchitectureOf(const Fields& f, const json& j) {
  if (!f.has("architectures")) throw InputError(f.where() + ": missing field 'architectures'");
  const json& a = j.at("architectures");
  if (!a.is_array() || a.empty() || !a.at(0).is_string())
    throw InputError(f.where() + ": field 'architectures' must be a non-empty list of strings");
  const std::string arch = a.at(0).get<std::string>();
  for (const Architecture& known : kArchitectures)
    if (arch == known.name) return known;
  std::string list;
  for (const Architecture& known : kArchitectures) list += (list.empty() ? "" : ", ") + std::string(known.name);
  throw InputError(f.where() + ": unsupported architecture '" + arch + "'; supported: " + list);
}

}  // namespace

const std::vector<std::string>& SupportedArchitectures() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> v;
    for (const Architecture& a : kArchitectures) v.push_back(a.name);
    return v;
  }();
  return kNames;
}

ModelSpec ParseHfConfig(std::string_view text, const std::string& where, const std::string& name) {
  const json j = ParseConfigJson(text, where);
  if (!j.is_object()) throw InputError(where + ": a config.json must be a JSON object");
  const JsonFields root(j, where);
  const Fields f(JsonView(root, j, ""));
  const Architecture& arch = ArchitectureOf(f, j);
  ModelSpec m;
  m.name = name;
  m.architecture = arch.name;
  arch.read(f, j, m);
  ValidateModel(m, where);
  return m;
}

}  // namespace paratune
