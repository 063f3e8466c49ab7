// ModelSpec: the shape of a decoder-only transformer, as much as the cost model needs: layer
// count and widths, attention kind (multi-head/grouped-query or DeepSeek's multi-head latent
// attention), MLP kind, and mixture-of-experts structure. Built from a Hugging Face config.json
// (hf_config.h) or inline flags; parameter counts are derived here.
#pragma once

#include <cstdint>
#include <string>

#include "util/enum_names.h"
#include <vector>

namespace paratune {

enum class AttentionKind { kGqa, kMla };  // kGqa covers MHA (kv_heads == heads) and MQA.
enum class MlpKind { kGated, kPlain };    // gated: SwiGLU/GeGLU, 3 GEMMs; plain: GELU/ReLU^2, 2 GEMMs.
enum class NormKind { kRmsNorm, kLayerNorm };
inline constexpr EnumNames<AttentionKind, 2> kAttentionKindNames{
    {{{AttentionKind::kGqa, "gqa"}, {AttentionKind::kMla, "mla"}}}, 2};
inline constexpr EnumNames<MlpKind, 2> kMlpKindNames{{{{MlpKind::kGated, "gated"}, {MlpKind::kPlain, "plain"}}}, 2};
inline constexpr EnumNames<NormKind, 2> kNormKindNames{
    {{{NormKind::kRmsNorm, "RMSNorm"}, {NormKind::kLayerNorm, "LayerNorm"}}}, 2};

// How token positions enter the model: rotary embeddings (Llama, Qwen, DeepSeek, GPT-NeoX,
// Nemotron), a learned absolute table (GPT-2), ALiBi attention biases (MPT), or nothing.
enum class PositionKind { kRotary, kLearned, kAlibi, kNone };
inline constexpr EnumNames<PositionKind, 4> kPositionKindNames{{{{PositionKind::kRotary, "rotary"},
                                                                 {PositionKind::kLearned, "learned"},
                                                                 {PositionKind::kAlibi, "alibi"},
                                                                 {PositionKind::kNone, "none"}}},
                                                               4};
inline const char* PositionKindName(PositionKind k) { return kPositionKindNames.Name(k); }

// RoPE scaling, by the names of transformers' modeling_rope_utils.py ROPE_INIT_FUNCTIONS
// ("default" is kNone).
enum class RopeScalingKind { kNone, kLinear, kDynamic, kYarn, kLongRope, kLlama3 };
inline constexpr EnumNames<RopeScalingKind, 6> kRopeScalingNames{{{{RopeScalingKind::kNone, "default"},
                                                                   {RopeScalingKind::kLinear, "linear"},
                                                                   {RopeScalingKind::kDynamic, "dynamic"},
                                                                   {RopeScalingKind::kYarn, "yarn"},
                                                                   {RopeScalingKind::kLongRope, "longrope"},
                                                                   {RopeScalingKind::kLlama3, "llama3"}}},
                                                                 6};
inline const char* RopeScalingName(RopeScalingKind k) { return kRopeScalingNames.Name(k); }

// The rope_scaling (transformers v4) or rope_parameters (v5) block of a config.json. Fields a
// kind does not use stay 0, so that two specs of the same scaling compare equal.
struct RopeScaling {
  RopeScalingKind kind = RopeScalingKind::kNone;
  double factor = 0;                   // linear, dynamic, yarn, llama3, longrope
  int64_t original_max_positions = 0;  // original_max_position_embeddings: yarn, llama3, longrope
  double low_freq_factor = 0;          // llama3
  double high_freq_factor = 0;         // llama3
  double beta_fast = 0;                // yarn
  double beta_slow = 0;                // yarn
  double mscale = 0;                   // yarn (DeepSeek): attention factor numerator
  double mscale_all_dim = 0;           // yarn (DeepSeek): attention factor denominator
  double attention_factor = 0;         // yarn/longrope: explicit attention factor, 0 = derived

  bool operator==(const RopeScaling&) const = default;
};

struct ModelSpec {
  std::string name;          // catalog id or file name
  std::string architecture;  // Hugging Face class, e.g. "LlamaForCausalLM"

  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;  // query/key head dim for GQA; may differ from hidden/heads (Qwen3)
  int64_t vocab = 0;
  int64_t ffn_hidden = 0;  // dense MLP intermediate size
  MlpKind mlp = MlpKind::kGated;
  NormKind norm = NormKind::kRmsNorm;
  AttentionKind attention = AttentionKind::kGqa;
  bool tied_embeddings = false;
  bool qkv_bias = false;          // bias on Q, K, V projections only (Qwen2)
  bool linear_bias = false;       // bias on every linear layer (GPT-2, GPT-NeoX)
  bool o_bias = false;            // bias on the attention output projection too (InternLM: q, k, v and o)
  bool qk_norm = false;           // per-head RMSNorm on Q and K (Qwen3)
  bool attention_sinks = false;   // one learned sink logit per head per layer (GPT-OSS)
  bool router_bias = false;       // bias on the MoE router (GPT-OSS)
  bool dropout = false;           // any dropout > 0 (GPT-style); adds masks to activation memory
  int64_t learned_positions = 0;  // rows of a learned position table (GPT-2), 0 otherwise

  // Positions. max_position_embeddings is the config's context (n_positions for GPT-2,
  // max_seq_len for MPT); 0 = unknown (inline dimensions). The rotary fields describe
  // positions == kRotary and are 0 / none otherwise.
  PositionKind positions = PositionKind::kRotary;
  int64_t max_position_embeddings = 0;
  double rope_theta = 10000;    // rotary base (rope_theta); transformers' and Megatron's default
  double rotary_percent = 1.0;  // share of the head dim that is rotated (GPT-NeoX 0.25, Nemotron 0.5)
  RopeScaling rope_scaling;

  // Multi-head latent attention (DeepSeek-V2/V3).
  int64_t q_lora_rank = 0;  // 0: Q is projected directly from the hidden state
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t v_head_dim = 0;

  // Mixture of experts. experts == 0 means dense.
  int64_t experts = 0;
  int64_t topk = 0;
  int64_t moe_ffn_hidden = 0;       // intermediate size of one routed expert
  int64_t shared_experts = 0;       // always-active experts per MoE layer
  int64_t shared_ffn_hidden = 0;    // intermediate size of one shared expert
  bool shared_expert_gate = false;  // Qwen2-MoE's sigmoid gate on the shared expert
  int64_t first_dense_layers = 0;   // leading layers with a dense MLP (DeepSeek first_k_dense_replace)
  int64_t moe_layer_freq = 1;       // every n-th layer (after the dense ones) is MoE
  int64_t mtp_layers = 0;           // multi-token-prediction modules: noted, not counted in the main model
  // Group-limited routing (DeepSeek-V2 Sec. 2.1.2 device-limited, DeepSeek-V3 Sec. 2.1.2 and
  // 3.2.2 node-limited; config n_group, topk_group; Megatron --moe-router-num-groups,
  // --moe-router-group-topk): the experts fall into routing_groups groups and a token's top-k
  // lie in at most routing_group_topk of them. 0: unrestricted.
  int64_t routing_groups = 0;
  int64_t routing_group_topk = 0;
  // The router's scores and balancing (they change no cost; the emitted settings carry them).
  // DeepSeek-V3 (arXiv:2412.19437 Sec. 2.1.2; config scoring_func "sigmoid", topk_method
  // "noaux_tc", routed_scaling_factor): sigmoid affinities, auxiliary-loss-free balancing by a
  // bias per expert, and gates scaled after top-k. Megatron-LM: --moe-router-score-function
  // sigmoid, --moe-router-enable-expert-bias, --moe-router-topk-scaling-factor.
  bool router_sigmoid = false;
  bool router_expert_bias = false;
  double router_topk_scaling = 0;  // 0: none

  // Sliding-window attention (GPT-OSS layer_types): sliding_window_layers of the layers attend
  // to at most the sliding_window previous keys; the others attend to the whole sequence.
  int64_t sliding_window = 0;         // keys per query in a sliding layer; 0 = none
  int64_t sliding_window_layers = 0;  // how many layers slide

  bool is_moe() const { return experts > 0; }
  int64_t moe_layers() const;
  int64_t dense_layers() const { return layers - moe_layers(); }
  // Whether layer i (0-based) has an MoE block: after the first dense layers, one in every
  // moe_layer_freq (the last of each group), consistent with moe_layers().
  bool is_moe_layer(int64_t i) const;

  // Query/key and value widths of one attention head.
  int64_t qk_head_dim() const;
  int64_t v_dim() const;

  bool operator==(const ModelSpec&) const = default;
};

// Every field in which `a` and `b` differ, in declaration order, one "field: a vs b" string
// each (e.g. "rope_scaling.factor: 8 vs 40"); empty when a == b. Tests name the first one.
std::vector<std::string> ModelDifferences(const ModelSpec& a, const ModelSpec& b);

// Parameter counts of a ModelSpec, split the way sharding needs them.
struct ParamCounts {
  int64_t embedding = 0;       // input token (and learned position) table
  int64_t output = 0;          // output projection; 0 when tied to the embedding
  int64_t attention = 0;       // all layers, incl. attention norms and biases
  int64_t dense_mlp = 0;       // MLP of dense layers, incl. norms
  int64_t router = 0;          // MoE router weights (and shared-expert gates)
  int64_t routed_experts = 0;  // all routed experts of all MoE layers
  int64_t shared_experts = 0;
  int64_t moe_norms = 0;  // pre-MLP norms of MoE layers
  int64_t final_norm = 0;

  int64_t total() const;
  // Parameters a token passes through: everything but the routed experts it is not sent to.
  // Includes the embedding row and the output head, as in Mixtral's 12.9B and Llama's counts.
  int64_t active(const ModelSpec& m) const;
  // Parameters that are not routed experts (replicated or tensor-sharded, never expert-sharded).
  int64_t non_expert() const { return total() - routed_experts; }
};

// Parameter counts of one attention block and one MLP (per layer).
int64_t AttentionParamsPerLayer(const ModelSpec& m);
int64_t DenseMlpParamsPerLayer(const ModelSpec& m);
int64_t RoutedExpertParams(const ModelSpec& m);  // one routed expert
int64_t SharedExpertParamsPerLayer(const ModelSpec& m);
int64_t RouterParamsPerLayer(const ModelSpec& m);
int64_t NormParams(const ModelSpec& m);  // one norm of width hidden

ParamCounts CountParams(const ModelSpec& m);

// Largest accepted dimensions (ValidateModel).
inline constexpr int64_t kMaxLayers = 100'000;
inline constexpr int64_t kMaxWidth = 10'000'000;
inline constexpr int64_t kMaxVocab = 100'000'000;
inline constexpr int64_t kMaxExperts = 1'000'000;
inline constexpr int64_t kMaxPositions = 1'000'000'000;

// Throws InputError naming the first field that is missing, non-positive, too large or
// inconsistent.
void ValidateModel(const ModelSpec& m, const std::string& where);

}  // namespace paratune
