#include "model/hf_config.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "util/error.h"

namespace paratune {
namespace {

using nlohmann::json;

class Fields {
 public:
  Fields(const json& j, const std::string& where) : j_(j), where_(where) {}

  const std::string& where() const { return where_; }
  bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }

  int64_t Int(const char* key) const {
    if (!has(key)) throw InputError(where_ + ": missing field '" + key + "'");
    return AsInt(j_.at(key), key);
  }
  int64_t Int(const char* key, int64_t fallback) const {
    return has(key) ? AsInt(j_.at(key), key) : fallback;
  }
  double Num(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const json& v = j_.at(key);
    if (!v.is_number()) throw InputError(where_ + ": field '" + key + "' must be a number");
    return v.get<double>();
  }
  bool Bool(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const json& v = j_.at(key);
    if (!v.is_boolean()) throw InputError(where_ + ": field '" + key + "' must be true or false");
    return v.get<bool>();
  }
  std::string Str(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    const json& v = j_.at(key);
    if (!v.is_string()) throw InputError(where_ + ": field '" + key + "' must be a string");
    return v.get<std::string>();
  }
  // A list of integers (Qwen's mlp_only_layers); absent gives an empty list.
  std::vector<int64_t> IntList(const char* key) const {
    std::vector<int64_t> out;
    if (!has(key)) return out;
    const json& v = j_.at(key);
    if (!v.is_array()) throw InputError(where_ + ": field '" + key + "' must be a list");
    for (const json& e : v) out.push_back(AsInt(e, key));
    return out;
  }

 private:
  int64_t AsInt(const json& v, const char* key) const {
    if (v.is_number_integer()) {
      if (v.is_number_unsigned() && v.get<uint64_t>() > (uint64_t{1} << 53))
        throw InputError(where_ + ": field '" + key + "' is too large");
      const int64_t x = v.get<int64_t>();
      if (x < 0 || x > (int64_t{1} << 53))
        throw InputError(where_ + ": field '" + key + "' must be a non-negative integer, got " +
                         std::to_string(x));
      return x;
    }
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (d >= 0 && d < 9e15 && d == static_cast<double>(static_cast<int64_t>(d)))
        return static_cast<int64_t>(d);
    }
    throw InputError(where_ + ": field '" + key + "' must be a non-negative integer, got " +
                     (v.is_primitive() ? v.dump().substr(0, 40) : std::string(v.type_name())));
  }

  const json& j_;
  std::string where_;
};

void ReadLlamaLike(const Fields& f, ModelSpec& m) {
  m.layers = f.Int("num_hidden_layers");
  m.hidden = f.Int("hidden_size");
  m.heads = f.Int("num_attention_heads");
  m.kv_heads = f.Int("num_key_value_heads", m.heads);
  m.head_dim = f.Int("head_dim", m.heads > 0 ? m.hidden / m.heads : 0);
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

}  // namespace

const std::vector<std::string>& SupportedArchitectures() {
  static const std::vector<std::string> kArch = {
      "LlamaForCausalLM",       "MistralForCausalLM",     "Qwen2ForCausalLM",
      "Qwen3ForCausalLM",       "MixtralForCausalLM",     "Qwen2MoeForCausalLM",
      "Qwen3MoeForCausalLM",    "DeepseekV3ForCausalLM",  "DeepseekV2ForCausalLM",
      "GPT2LMHeadModel",        "GPTNeoXForCausalLM",     "MPTForCausalLM",
      "NemotronForCausalLM"};
  return kArch;
}

ModelSpec ParseHfConfig(std::string_view text, const std::string& where, const std::string& name) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // Report a line number: count newlines up to the failing byte.
    const size_t byte = std::min<size_t>(e.byte, text.size());
    const size_t line = 1 + std::count(text.begin(), text.begin() + byte, '\n');
    std::string what = e.what();
    const size_t colon = what.find("syntax error");
    throw InputError(where + ":" + std::to_string(line) + ": invalid JSON: " +
                     (colon == std::string::npos ? what : what.substr(colon)));
  } catch (const json::out_of_range& e) {  // a number beyond double, e.g. 1e400 (no position given)
    const std::string what = e.what();
    throw InputError(where + ": invalid JSON: " + what.substr(what.find(']') + 2));
  }
  if (!j.is_object()) throw InputError(where + ": a config.json must be a JSON object");
  Fields f(j, where);

  std::string arch;
  if (f.has("architectures")) {
    const json& a = j.at("architectures");
    if (!a.is_array() || a.empty() || !a.at(0).is_string())
      throw InputError(where + ": field 'architectures' must be a non-empty list of strings");
    arch = a.at(0).get<std::string>();
  } else {
    throw InputError(where + ": missing field 'architectures'");
  }
  const auto& supported = SupportedArchitectures();
  if (std::find(supported.begin(), supported.end(), arch) == supported.end()) {
    std::string list;
    for (const auto& s : supported) list += (list.empty() ? "" : ", ") + s;
    throw InputError(where + ": unsupported architecture '" + arch + "'; supported: " + list);
  }

  ModelSpec m;
  m.name = name;
  m.architecture = arch;

  if (arch == "LlamaForCausalLM" || arch == "MistralForCausalLM") {
    ReadLlamaLike(f, m);
  } else if (arch == "Qwen2ForCausalLM") {
    ReadLlamaLike(f, m);
    m.qkv_bias = true;  // Qwen2Attention: q/k/v_proj have bias=True, o_proj bias=False
  } else if (arch == "Qwen3ForCausalLM") {
    ReadLlamaLike(f, m);
    m.qk_norm = true;
  } else if (arch == "MixtralForCausalLM") {
    ReadLlamaLike(f, m);
    m.experts = f.Int("num_local_experts");
    m.topk = f.Int("num_experts_per_tok");
    m.moe_ffn_hidden = f.Int("intermediate_size");
    m.ffn_hidden = 0;
  } else if (arch == "Qwen2MoeForCausalLM") {
    ReadLlamaLike(f, m);
    m.qkv_bias = true;
    ReadQwenMoe(f, m);
    const int64_t shared = f.Int("shared_expert_intermediate_size", 0);
    if (shared > 0) {
      m.shared_experts = 1;
      m.shared_ffn_hidden = shared;
      m.shared_expert_gate = true;
    }
  } else if (arch == "Qwen3MoeForCausalLM") {
    ReadLlamaLike(f, m);
    m.qk_norm = true;
    ReadQwenMoe(f, m);
  } else if (arch == "DeepseekV3ForCausalLM" || arch == "DeepseekV2ForCausalLM") {
    ReadLlamaLike(f, m);
    m.attention = AttentionKind::kMla;
    m.q_lora_rank = f.Int("q_lora_rank", 0);
    m.kv_lora_rank = f.Int("kv_lora_rank");
    m.qk_nope_head_dim = f.Int("qk_nope_head_dim");
    m.qk_rope_head_dim = f.Int("qk_rope_head_dim");
    m.v_head_dim = f.Int("v_head_dim");
    m.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
    m.kv_heads = m.heads;
    m.experts = f.Int("n_routed_experts", 0);
    if (m.experts > 0) {
      m.topk = f.Int("num_experts_per_tok");
      m.moe_ffn_hidden = f.Int("moe_intermediate_size");
      // DeepseekV3MoE builds the shared experts as one MLP of width
      // moe_intermediate_size * n_shared_experts: the same parameters as n separate experts.
      m.shared_experts = f.Int("n_shared_experts", 0);
      m.shared_ffn_hidden = m.moe_ffn_hidden;
      m.first_dense_layers = f.Int("first_k_dense_replace", 0);
      m.moe_layer_freq = f.Int("moe_layer_freq", 1);
    }
    m.mtp_layers = f.Int("num_nextn_predict_layers", 0);
  } else if (arch == "GPT2LMHeadModel") {
    m.layers = f.Int("n_layer");
    m.hidden = f.Int("n_embd");
    m.heads = f.Int("n_head");
    m.kv_heads = m.heads;
    m.head_dim = m.heads > 0 ? m.hidden / m.heads : 0;
    m.vocab = f.Int("vocab_size");
    m.ffn_hidden = f.Int("n_inner", 4 * m.hidden);
    m.learned_positions = f.Int("n_positions", 1024);
    m.mlp = MlpKind::kPlain;
    m.norm = NormKind::kLayerNorm;
    m.linear_bias = true;
    m.tied_embeddings = f.Bool("tie_word_embeddings", true);
    m.dropout = f.Num("resid_pdrop", 0.1) > 0 || f.Num("attn_pdrop", 0.1) > 0;
  } else if (arch == "GPTNeoXForCausalLM") {
    ReadLlamaLike(f, m);
    m.kv_heads = m.heads;
    m.mlp = MlpKind::kPlain;
    m.norm = NormKind::kLayerNorm;
    m.linear_bias = true;
    m.dropout = f.Num("hidden_dropout", 0.0) > 0 || f.Num("attention_dropout", 0.0) > 0;
  } else if (arch == "MPTForCausalLM") {
    m.layers = f.Int("n_layers");
    m.hidden = f.Int("d_model");
    m.heads = f.Int("n_heads");
    m.kv_heads = m.heads;
    m.head_dim = m.heads > 0 ? m.hidden / m.heads : 0;
    m.vocab = f.Int("vocab_size");
    if (__builtin_mul_overflow(f.Int("expansion_ratio", 4), m.hidden, &m.ffn_hidden))
      throw InputError(where + ": fields 'expansion_ratio' * 'd_model' are too large");
    m.mlp = MlpKind::kPlain;
    m.norm = NormKind::kLayerNorm;
    m.linear_bias = !f.Bool("no_bias", true);
    m.tied_embeddings = true;  // MPT reuses the token embedding as the output head
    // MPT's low-precision LayerNorm has no bias when no_bias is set: count it as RMSNorm-sized.
    if (!m.linear_bias) m.norm = NormKind::kRmsNorm;
    m.dropout = f.Num("resid_pdrop", 0.0) > 0 || f.Num("emb_pdrop", 0.0) > 0;
  } else if (arch == "NemotronForCausalLM") {
    ReadLlamaLike(f, m);
    m.mlp = MlpKind::kPlain;  // squared-ReLU, up_proj and down_proj only
    m.norm = NormKind::kLayerNorm;  // NemotronLayerNorm1P: weight and bias
  }
  ValidateModel(m, where);
  return m;
}

}  // namespace paratune
