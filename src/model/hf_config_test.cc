// Tests of ParseHfConfig (every supported architecture, broken input) and of LoadModel /
// ModelFromDims error handling.
#include "model/hf_config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>

#include "model/catalog.h"
#include "model/model_spec.h"
#include "util/error.h"
#include "util/test_util.h"

namespace paratune {
namespace {

constexpr const char* kWhere = "dir/config.json";

ModelSpec Parse(const std::string& text) { return ParseHfConfig(text, kWhere, "test-model"); }
std::string ParseError(const std::string& text) {
  return InputErrorOf([&] { Parse(text); });
}

// A Llama config without hidden_size, plus `extra` (e.g. "\"hidden_size\": -1").
std::string LlamaWith(const std::string& extra) {
  return R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 4, "num_attention_heads": 8,
            "num_key_value_heads": 2, "vocab_size": 1000, "intermediate_size": 512, )" +
         extra + "}";
}

// ---------------------------------------------------------------------------------------------
// Supported architectures

TEST(HfConfig, SupportedArchitecturesListed) {
  const auto& a = SupportedArchitectures();
  EXPECT_EQ(a.size(), 18u);  // + GptOssForCausalLM, Llama4*, InternLMForCausalLM, Grok1ModelForCausalLM
  EXPECT_NE(std::find(a.begin(), a.end(), "LlamaForCausalLM"), a.end());
  EXPECT_NE(std::find(a.begin(), a.end(), "DeepseekV3ForCausalLM"), a.end());
}

TEST(HfConfig, Llama) {
  const ModelSpec m = Parse(LlamaWith(R"("hidden_size": 256)"));
  EXPECT_EQ(m.name, "test-model");
  EXPECT_EQ(m.architecture, "LlamaForCausalLM");
  EXPECT_EQ(m.layers, 4);
  EXPECT_EQ(m.hidden, 256);
  EXPECT_EQ(m.heads, 8);
  EXPECT_EQ(m.kv_heads, 2);
  EXPECT_EQ(m.head_dim, 32);  // hidden / heads when head_dim is absent
  EXPECT_EQ(m.vocab, 1000);
  EXPECT_EQ(m.ffn_hidden, 512);
  EXPECT_EQ(m.mlp, MlpKind::kGated);
  EXPECT_EQ(m.norm, NormKind::kRmsNorm);
  EXPECT_EQ(m.attention, AttentionKind::kGqa);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_FALSE(m.qkv_bias);
  EXPECT_FALSE(m.qk_norm);
  EXPECT_FALSE(m.linear_bias);
  EXPECT_FALSE(m.is_moe());
  EXPECT_EQ(m.learned_positions, 0);
}

TEST(HfConfig, LlamaDefaultsKvHeadsToHeadsAndReadsAttentionBias) {
  const ModelSpec m = Parse(R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 128, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 256,
      "attention_bias": true, "num_key_value_heads": null})");
  EXPECT_EQ(m.kv_heads, 4);  // null counts as absent
  EXPECT_TRUE(m.qkv_bias);
}

TEST(HfConfig, MistralWithExplicitHeadDimAndTiedEmbeddings) {
  const ModelSpec m = Parse(R"({"architectures": ["MistralForCausalLM"], "num_hidden_layers": 32,
      "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 160,
      "vocab_size": 32768, "intermediate_size": 14336, "tie_word_embeddings": true})");
  EXPECT_EQ(m.architecture, "MistralForCausalLM");
  EXPECT_EQ(m.layers, 32);
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.head_dim, 160);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.ffn_hidden, 14336);
}

TEST(HfConfig, Qwen2HasQkvBias) {
  const ModelSpec m = Parse(R"({"architectures": ["Qwen2ForCausalLM"], "num_hidden_layers": 28,
      "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
      "vocab_size": 152064, "intermediate_size": 18944, "tie_word_embeddings": false})");
  EXPECT_EQ(m.layers, 28);
  EXPECT_EQ(m.kv_heads, 4);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_TRUE(m.qkv_bias);  // implied by the architecture, no attention_bias field needed
  EXPECT_FALSE(m.linear_bias);
  EXPECT_FALSE(m.qk_norm);
}

TEST(HfConfig, Qwen3HasQkNormAndIndependentHeadDim) {
  const ModelSpec m = Parse(R"({"architectures": ["Qwen3ForCausalLM"], "num_hidden_layers": 36,
      "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
      "vocab_size": 151936, "intermediate_size": 12288, "tie_word_embeddings": false})");
  EXPECT_TRUE(m.qk_norm);
  EXPECT_FALSE(m.qkv_bias);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_EQ(m.kv_heads, 8);

  // Qwen3-0.6B style: head_dim is not hidden/heads (1024/16 = 64).
  const ModelSpec small = Parse(R"({"architectures": ["Qwen3ForCausalLM"], "num_hidden_layers": 28,
      "hidden_size": 1024, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
      "vocab_size": 151936, "intermediate_size": 3072, "tie_word_embeddings": true})");
  EXPECT_EQ(small.head_dim, 128);
  EXPECT_TRUE(small.tied_embeddings);
}

TEST(HfConfig, Mixtral) {
  const ModelSpec m = Parse(R"({"architectures": ["MixtralForCausalLM"], "num_hidden_layers": 32,
      "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
      "vocab_size": 32000, "intermediate_size": 14336, "num_local_experts": 8,
      "num_experts_per_tok": 2})");
  EXPECT_EQ(m.experts, 8);
  EXPECT_EQ(m.topk, 2);
  EXPECT_EQ(m.moe_ffn_hidden, 14336);
  EXPECT_EQ(m.ffn_hidden, 0);  // no dense MLP
  EXPECT_EQ(m.first_dense_layers, 0);
  EXPECT_EQ(m.moe_layers(), 32);
  EXPECT_EQ(m.dense_layers(), 0);
  EXPECT_EQ(m.shared_experts, 0);
}

TEST(HfConfig, Qwen2MoeWithSharedExpert) {
  const ModelSpec m = Parse(R"({"architectures": ["Qwen2MoeForCausalLM"], "num_hidden_layers": 28,
      "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
      "vocab_size": 151936, "intermediate_size": 18944, "num_experts": 64,
      "num_experts_per_tok": 8, "moe_intermediate_size": 2560, "decoder_sparse_step": 1,
      "shared_expert_intermediate_size": 20480, "mlp_only_layers": []})");
  EXPECT_EQ(m.experts, 64);
  EXPECT_EQ(m.topk, 8);
  EXPECT_EQ(m.moe_ffn_hidden, 2560);
  EXPECT_EQ(m.shared_experts, 1);
  EXPECT_EQ(m.shared_ffn_hidden, 20480);
  EXPECT_TRUE(m.shared_expert_gate);
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_EQ(m.first_dense_layers, 0);
  EXPECT_EQ(m.moe_layers(), 28);
}

TEST(HfConfig, Qwen2MoeMlpOnlyLayersBecomeDense) {
  // Layers 0 and 1 are dense MLP, the other 6 MoE.
  const ModelSpec m = Parse(R"({"architectures": ["Qwen2MoeForCausalLM"], "num_hidden_layers": 8,
      "hidden_size": 256, "num_attention_heads": 8, "num_key_value_heads": 8, "vocab_size": 1000,
      "intermediate_size": 512, "num_experts": 4, "num_experts_per_tok": 2,
      "moe_intermediate_size": 128, "mlp_only_layers": [0, 1]})");
  EXPECT_EQ(m.first_dense_layers, 2);
  EXPECT_EQ(m.moe_layer_freq, 1);
  EXPECT_EQ(m.moe_layers(), 6);
  EXPECT_EQ(m.dense_layers(), 2);
  EXPECT_FALSE(m.is_moe_layer(1));
  EXPECT_TRUE(m.is_moe_layer(2));
  EXPECT_EQ(m.shared_experts, 0);  // no shared_expert_intermediate_size
  EXPECT_FALSE(m.shared_expert_gate);
}

TEST(HfConfig, Qwen2MoeDecoderSparseStep) {
  // decoder_sparse_step 2: layers 1, 3, 5, 7 are MoE (transformers: (i + 1) % step == 0).
  const std::string base = R"({"architectures": ["Qwen2MoeForCausalLM"], "num_hidden_layers": 8,
      "hidden_size": 256, "num_attention_heads": 8, "vocab_size": 1000, "intermediate_size": 512,
      "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 128, )";
  const ModelSpec m = Parse(base + R"("decoder_sparse_step": 2})");
  EXPECT_EQ(m.moe_layers(), 4);
  EXPECT_EQ(m.dense_layers(), 4);

  // Both: step 2 and layer 3 forced dense leaves layers 1, 5, 7.
  const ModelSpec both = Parse(base + R"("decoder_sparse_step": 2, "mlp_only_layers": [3]})");
  EXPECT_EQ(both.moe_layers(), 3);
  EXPECT_EQ(both.dense_layers(), 5);

  // mlp_only_layers must be a list of non-negative integers.
  EXPECT_CONTAINS(ParseError(base + R"("mlp_only_layers": 3})"), "'mlp_only_layers' must be a list");
  EXPECT_CONTAINS(ParseError(base + R"("mlp_only_layers": ["a"]})"), "'mlp_only_layers'");
}

TEST(HfConfig, Qwen3Moe) {
  const ModelSpec m = Parse(R"({"architectures": ["Qwen3MoeForCausalLM"], "num_hidden_layers": 48,
      "hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
      "vocab_size": 151936, "intermediate_size": 6144, "num_experts": 128,
      "num_experts_per_tok": 8, "moe_intermediate_size": 768, "decoder_sparse_step": 1,
      "mlp_only_layers": []})");
  EXPECT_TRUE(m.qk_norm);
  EXPECT_FALSE(m.qkv_bias);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_EQ(m.experts, 128);
  EXPECT_EQ(m.topk, 8);
  EXPECT_EQ(m.moe_ffn_hidden, 768);
  EXPECT_EQ(m.moe_layers(), 48);
  EXPECT_EQ(m.shared_experts, 0);
}

TEST(HfConfig, DeepseekV3Mla) {
  const ModelSpec m = Parse(R"({"architectures": ["DeepseekV3ForCausalLM"], "num_hidden_layers": 61,
      "hidden_size": 7168, "num_attention_heads": 128, "num_key_value_heads": 128,
      "vocab_size": 129280, "intermediate_size": 18432, "q_lora_rank": 1536,
      "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
      "n_routed_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 2048,
      "n_shared_experts": 1, "first_k_dense_replace": 3, "moe_layer_freq": 1,
      "num_nextn_predict_layers": 1})");
  EXPECT_EQ(m.attention, AttentionKind::kMla);
  EXPECT_EQ(m.q_lora_rank, 1536);
  EXPECT_EQ(m.kv_lora_rank, 512);
  EXPECT_EQ(m.qk_nope_head_dim, 128);
  EXPECT_EQ(m.qk_rope_head_dim, 64);
  EXPECT_EQ(m.v_head_dim, 128);
  EXPECT_EQ(m.head_dim, 192);
  EXPECT_EQ(m.qk_head_dim(), 192);
  EXPECT_EQ(m.v_dim(), 128);
  EXPECT_EQ(m.kv_heads, 128);
  EXPECT_EQ(m.experts, 256);
  EXPECT_EQ(m.topk, 8);
  EXPECT_EQ(m.moe_ffn_hidden, 2048);
  EXPECT_EQ(m.shared_experts, 1);
  EXPECT_EQ(m.shared_ffn_hidden, 2048);
  EXPECT_EQ(m.first_dense_layers, 3);
  EXPECT_EQ(m.moe_layers(), 58);
  EXPECT_EQ(m.mtp_layers, 1);
}

TEST(HfConfig, DeepseekV2LiteDenseWithoutQLora) {
  // V2-Lite projects Q directly (q_lora_rank null); without n_routed_experts the model is dense.
  const ModelSpec m = Parse(R"({"architectures": ["DeepseekV2ForCausalLM"], "num_hidden_layers": 27,
      "hidden_size": 2048, "num_attention_heads": 16, "vocab_size": 102400,
      "intermediate_size": 10944, "q_lora_rank": null, "kv_lora_rank": 512,
      "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128})");
  EXPECT_EQ(m.attention, AttentionKind::kMla);
  EXPECT_EQ(m.q_lora_rank, 0);
  EXPECT_EQ(m.kv_heads, 16);
  EXPECT_FALSE(m.is_moe());
  EXPECT_EQ(m.ffn_hidden, 10944);
  EXPECT_EQ(m.mtp_layers, 0);
}

TEST(HfConfig, Gpt2) {
  const ModelSpec m = Parse(R"({"architectures": ["GPT2LMHeadModel"], "n_layer": 12, "n_embd": 768,
      "n_head": 12, "vocab_size": 50257, "n_positions": 1024, "n_inner": null})");
  EXPECT_EQ(m.layers, 12);
  EXPECT_EQ(m.hidden, 768);
  EXPECT_EQ(m.heads, 12);
  EXPECT_EQ(m.kv_heads, 12);
  EXPECT_EQ(m.head_dim, 64);
  EXPECT_EQ(m.ffn_hidden, 4 * 768);
  EXPECT_EQ(m.learned_positions, 1024);
  EXPECT_TRUE(m.tied_embeddings);  // GPT-2 ties by default
  EXPECT_TRUE(m.linear_bias);
  EXPECT_TRUE(m.dropout);  // resid/attn dropout default 0.1
  EXPECT_EQ(m.mlp, MlpKind::kPlain);
  EXPECT_EQ(m.norm, NormKind::kLayerNorm);

  const ModelSpec untied = Parse(R"({"architectures": ["GPT2LMHeadModel"], "n_layer": 2,
      "n_embd": 64, "n_head": 4, "vocab_size": 100, "n_inner": 100, "tie_word_embeddings": false,
      "resid_pdrop": 0, "attn_pdrop": 0.0})");
  EXPECT_FALSE(untied.tied_embeddings);
  EXPECT_FALSE(untied.dropout);
  EXPECT_EQ(untied.ffn_hidden, 100);
  EXPECT_EQ(untied.learned_positions, 1024);
}

TEST(HfConfig, GptNeoX) {
  const ModelSpec m = Parse(R"({"architectures": ["GPTNeoXForCausalLM"], "num_hidden_layers": 44,
      "hidden_size": 6144, "num_attention_heads": 64, "num_key_value_heads": 8,
      "vocab_size": 50432, "intermediate_size": 24576, "tie_word_embeddings": false})");
  EXPECT_EQ(m.kv_heads, 64);  // NeoX is multi-head: num_key_value_heads is ignored
  EXPECT_EQ(m.head_dim, 96);
  EXPECT_EQ(m.mlp, MlpKind::kPlain);
  EXPECT_EQ(m.norm, NormKind::kLayerNorm);
  EXPECT_TRUE(m.linear_bias);
  EXPECT_FALSE(m.dropout);
}

TEST(HfConfig, Mpt) {
  const ModelSpec m = Parse(R"({"architectures": ["MPTForCausalLM"], "n_layers": 32, "d_model": 4096,
      "n_heads": 32, "vocab_size": 50432, "expansion_ratio": 4, "no_bias": true})");
  EXPECT_EQ(m.layers, 32);
  EXPECT_EQ(m.hidden, 4096);
  EXPECT_EQ(m.heads, 32);
  EXPECT_EQ(m.kv_heads, 32);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_EQ(m.ffn_hidden, 16384);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_FALSE(m.linear_bias);
  EXPECT_EQ(m.norm, NormKind::kRmsNorm);  // bias-free LayerNorm counted as RMSNorm-sized

  const ModelSpec biased = Parse(R"({"architectures": ["MPTForCausalLM"], "n_layers": 2,
      "d_model": 64, "n_heads": 4, "vocab_size": 100, "no_bias": false})");
  EXPECT_TRUE(biased.linear_bias);
  EXPECT_EQ(biased.norm, NormKind::kLayerNorm);
  EXPECT_EQ(biased.ffn_hidden, 256);  // expansion_ratio defaults to 4
}

TEST(HfConfigErrors, MptExpansionOverflow) {
  const std::string msg = ParseError(R"({"architectures": ["MPTForCausalLM"], "n_layers": 2,
      "d_model": 9007199254740992, "n_heads": 1, "vocab_size": 10, "expansion_ratio": 9007199254740992})");
  EXPECT_CONTAINS(msg, "dir/config.json");
  EXPECT_CONTAINS(msg, "'expansion_ratio'");
}

TEST(HfConfig, Nemotron) {
  const ModelSpec m = Parse(R"({"architectures": ["NemotronForCausalLM"], "num_hidden_layers": 96,
      "hidden_size": 18432, "num_attention_heads": 96, "num_key_value_heads": 8,
      "vocab_size": 256000, "intermediate_size": 73728, "head_dim": 192})");
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.head_dim, 192);
  EXPECT_EQ(m.mlp, MlpKind::kPlain);
  EXPECT_EQ(m.norm, NormKind::kLayerNorm);
  EXPECT_FALSE(m.linear_bias);
}

// InternLM: `bias` (default true) puts biases on q, k, v and o, none in the MLP; a later
// revision's `rotary.base` is the rotary base.
TEST(HfConfig, InternLMBiasesAndRotaryBase) {
  const std::string base = R"({"architectures": ["InternLMForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 256, "num_attention_heads": 4, "vocab_size": 1000, "intermediate_size": 512)";
  const ModelSpec m = Parse(base + "}");
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_TRUE(m.o_bias);
  EXPECT_FALSE(m.linear_bias);
  EXPECT_EQ(m.max_position_embeddings, 2048);
  EXPECT_EQ(m.rope_theta, 10000);
  EXPECT_EQ(AttentionParamsPerLayer(m), 256 + 4 * 256 * 256 + 4 * 256);
  const ModelSpec plain = Parse(base + R"(, "bias": false, "rotary": {"base": 500000, "type": "dynamic"}})");
  EXPECT_FALSE(plain.qkv_bias);
  EXPECT_FALSE(plain.o_bias);
  EXPECT_EQ(plain.rope_theta, 500000);
  EXPECT_EQ(ParseError(base + R"(, "rotary": {"base": 0}})"),
            "dir/config.json: field 'rotary.base' must be a positive number, got 0");
}

// Grok-1's transformers port: num_experts experts of intermediate_size, top num_experts_per_tok,
// the embedding tied to the head unless tie_word_embeddings says otherwise.
TEST(HfConfig, Grok1) {
  const std::string base = R"({"architectures": ["Grok1ModelForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 256, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000,
      "intermediate_size": 512, "num_experts": 8, "num_experts_per_tok": 2)";
  const ModelSpec m = Parse(base + "}");
  EXPECT_EQ(m.experts, 8);
  EXPECT_EQ(m.topk, 2);
  EXPECT_EQ(m.moe_ffn_hidden, 512);
  EXPECT_EQ(m.ffn_hidden, 0);
  EXPECT_EQ(m.moe_layers(), 2);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.mlp, MlpKind::kGated);
  EXPECT_EQ(m.max_position_embeddings, 8192);
  EXPECT_FALSE(Parse(base + R"(, "tie_word_embeddings": false})").tied_embeddings);
  EXPECT_EQ(ParseError(R"({"architectures": ["Grok1ModelForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 256, "num_attention_heads": 4, "vocab_size": 1000, "intermediate_size": 512,
      "num_experts_per_tok": 2})"),
            "dir/config.json: missing field 'num_experts'");
}

TEST(HfConfig, IntegralFloatIsAccepted) {
  const ModelSpec m = Parse(LlamaWith(R"("hidden_size": 256.0)"));
  EXPECT_EQ(m.hidden, 256);
}

TEST(HfConfig, UsesFirstArchitecture) {
  const ModelSpec m = Parse(R"({"architectures": ["Qwen2ForCausalLM", "LlamaForCausalLM"],
      "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10,
      "intermediate_size": 128})");
  EXPECT_EQ(m.architecture, "Qwen2ForCausalLM");
}

// ---------------------------------------------------------------------------------------------
// Positions: rotary base, scaling, partial rotary, context length; learned tables and ALiBi.

TEST(HfConfigRope, Llama31ScalingFromCatalog) {
  const ModelSpec m = LoadModel("llama-3.1-8b");
  EXPECT_EQ(m.positions, PositionKind::kRotary);
  EXPECT_EQ(m.rope_theta, 500000.0);
  EXPECT_EQ(m.max_position_embeddings, 131072);
  EXPECT_EQ(m.rotary_percent, 1.0);
  EXPECT_EQ(m.rope_scaling.kind, RopeScalingKind::kLlama3);
  EXPECT_EQ(m.rope_scaling.factor, 8.0);
  EXPECT_EQ(m.rope_scaling.low_freq_factor, 1.0);
  EXPECT_EQ(m.rope_scaling.high_freq_factor, 4.0);
  EXPECT_EQ(m.rope_scaling.original_max_positions, 8192);
  EXPECT_EQ(m.rope_scaling.beta_fast, 0.0);  // fields llama3 does not use stay 0
  EXPECT_EQ(m.learned_positions, 0);
}

TEST(HfConfigRope, DefaultsWhenKeysAreAbsent) {
  // Llama: rope_theta 10000, max_position_embeddings 2048 (configuration_llama.py).
  const ModelSpec llama = Parse(LlamaWith(R"("hidden_size": 256)"));
  EXPECT_EQ(llama.rope_theta, 10000.0);
  EXPECT_EQ(llama.max_position_embeddings, 2048);
  EXPECT_EQ(llama.rope_scaling.kind, RopeScalingKind::kNone);
  // Llama-2 has no rope_theta key and rope_scaling null.
  const ModelSpec l2 = LoadModel("llama-2-7b");
  EXPECT_EQ(l2.rope_theta, 10000.0);
  EXPECT_EQ(l2.max_position_embeddings, 4096);
  EXPECT_EQ(l2.rope_scaling, RopeScaling{});
  // Mixtral's own default_theta is 1e6; Mistral's context default 4096 * 32.
  const std::string mixtral = R"({"architectures": ["MixtralForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 128,
      "num_local_experts": 4, "num_experts_per_tok": 2})";
  EXPECT_EQ(Parse(mixtral).rope_theta, 1e6);
  EXPECT_EQ(Parse(mixtral).max_position_embeddings, 131072);
  const ModelSpec mistral = Parse(R"({"architectures": ["MistralForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 128})");
  EXPECT_EQ(mistral.rope_theta, 10000.0);
  EXPECT_EQ(mistral.max_position_embeddings, 131072);
  // Qwen2/Qwen3 (and their MoE) default to 32768 positions.
  const ModelSpec qwen3 = Parse(R"({"architectures": ["Qwen3ForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 64, "num_attention_heads": 4, "head_dim": 16, "vocab_size": 10, "intermediate_size": 128})");
  EXPECT_EQ(qwen3.max_position_embeddings, 32768);
  EXPECT_EQ(qwen3.rope_theta, 10000.0);
}

TEST(HfConfigRope, DeepseekYarn) {
  const ModelSpec m = LoadModel("deepseek-v3");
  EXPECT_EQ(m.positions, PositionKind::kRotary);
  EXPECT_EQ(m.rope_theta, 10000.0);
  EXPECT_EQ(m.max_position_embeddings, 163840);
  EXPECT_EQ(m.rope_scaling.kind, RopeScalingKind::kYarn);
  EXPECT_EQ(m.rope_scaling.factor, 40.0);
  EXPECT_EQ(m.rope_scaling.original_max_positions, 4096);
  EXPECT_EQ(m.rope_scaling.beta_fast, 32.0);
  EXPECT_EQ(m.rope_scaling.beta_slow, 1.0);
  EXPECT_EQ(m.rope_scaling.mscale, 1.0);
  EXPECT_EQ(m.rope_scaling.mscale_all_dim, 1.0);
  EXPECT_EQ(m.rope_scaling.attention_factor, 0.0);

  // Legacy "type" key, yarn defaults: betas 32/1, original = max_position_embeddings,
  // mscale 1 over mscale_all_dim 0.
  const ModelSpec y = Parse(LlamaWith(R"("hidden_size": 256, "max_position_embeddings": 32768,
      "rope_scaling": {"type": "yarn", "factor": 4})"));
  EXPECT_EQ(y.rope_scaling.kind, RopeScalingKind::kYarn);
  EXPECT_EQ(y.rope_scaling.factor, 4.0);
  EXPECT_EQ(y.rope_scaling.original_max_positions, 32768);
  EXPECT_EQ(y.rope_scaling.beta_fast, 32.0);
  EXPECT_EQ(y.rope_scaling.beta_slow, 1.0);
  EXPECT_EQ(y.rope_scaling.mscale, 1.0);
  EXPECT_EQ(y.rope_scaling.mscale_all_dim, 0.0);
}

TEST(HfConfigRope, OtherScalingKinds) {
  const ModelSpec lin =
      Parse(LlamaWith(R"("hidden_size": 256, "rope_scaling": {"rope_type": "linear", "factor": 2.0})"));
  EXPECT_EQ(lin.rope_scaling.kind, RopeScalingKind::kLinear);
  EXPECT_EQ(lin.rope_scaling.factor, 2.0);
  const ModelSpec dyn = Parse(LlamaWith(R"("hidden_size": 256, "rope_scaling": {"type": "dynamic", "factor": 3})"));
  EXPECT_EQ(dyn.rope_scaling.kind, RopeScalingKind::kDynamic);
  EXPECT_EQ(dyn.rope_scaling.factor, 3.0);
  const ModelSpec lr = Parse(LlamaWith(R"("hidden_size": 256, "rope_scaling": {"rope_type": "longrope",
      "short_factor": [1.0], "long_factor": [2.0], "original_max_position_embeddings": 4096})"));
  EXPECT_EQ(lr.rope_scaling.kind, RopeScalingKind::kLongRope);
  EXPECT_EQ(lr.rope_scaling.original_max_positions, 4096);
  // "default" and an empty block are no scaling.
  EXPECT_EQ(Parse(LlamaWith(R"("hidden_size": 256, "rope_scaling": {"rope_type": "default"})")).rope_scaling.kind,
            RopeScalingKind::kNone);
  EXPECT_EQ(Parse(LlamaWith(R"("hidden_size": 256, "rope_scaling": {})")).rope_scaling.kind, RopeScalingKind::kNone);
}

TEST(HfConfigRope, TransformersV5RopeParameters) {
  // transformers v5 writes rope_theta and the scaling into one rope_parameters block.
  const ModelSpec m = Parse(LlamaWith(R"("hidden_size": 256, "max_position_embeddings": 131072,
      "rope_parameters": {"rope_theta": 500000.0, "rope_type": "llama3", "factor": 8.0,
      "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192})"));
  EXPECT_EQ(m.rope_theta, 500000.0);
  EXPECT_EQ(m.rope_scaling.kind, RopeScalingKind::kLlama3);
  EXPECT_EQ(m.rope_scaling.factor, 8.0);
  EXPECT_EQ(m.rope_scaling.original_max_positions, 8192);
  // Only a theta: no scaling; the block's rope_theta wins over a top-level one.
  const ModelSpec t = Parse(LlamaWith(R"("hidden_size": 256, "rope_theta": 1.0,
      "rope_parameters": {"rope_theta": 250000, "rope_type": "default"})"));
  EXPECT_EQ(t.rope_theta, 250000.0);
  EXPECT_EQ(t.rope_scaling.kind, RopeScalingKind::kNone);
}

TEST(HfConfigRope, PartialRotaryAndNonRotaryPositions) {
  // GPT-NeoX-20B: rotary_pct 0.25, rotary_emb_base 10000.
  const ModelSpec neox = LoadModel("gpt-neox-20b");
  EXPECT_EQ(neox.positions, PositionKind::kRotary);
  EXPECT_EQ(neox.rotary_percent, 0.25);
  EXPECT_EQ(neox.rope_theta, 10000.0);
  EXPECT_EQ(neox.max_position_embeddings, 2048);
  const ModelSpec neox_base = Parse(R"({"architectures": ["GPTNeoXForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 256,
      "rotary_emb_base": 20000, "rotary_pct": 0.5})");
  EXPECT_EQ(neox_base.rope_theta, 20000.0);
  EXPECT_EQ(neox_base.rotary_percent, 0.5);
  // The common key names are read too when NeoX's own are absent.
  const ModelSpec neox_common = Parse(R"({"architectures": ["GPTNeoXForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 256,
      "rope_theta": 30000, "partial_rotary_factor": 1.0})");
  EXPECT_EQ(neox_common.rope_theta, 30000.0);
  EXPECT_EQ(neox_common.rotary_percent, 1.0);
  // Nemotron: partial_rotary_factor defaults to 0.5 (its "rope_percent" key is not read).
  const ModelSpec nemo = LoadModel("nemotron-4-340b");
  EXPECT_EQ(nemo.rotary_percent, 0.5);
  EXPECT_EQ(nemo.max_position_embeddings, 4096);
  // GPT-2: a learned table of n_positions rows, no rotary base.
  const ModelSpec gpt = LoadModel("gpt3-175b");
  EXPECT_EQ(gpt.positions, PositionKind::kLearned);
  EXPECT_EQ(gpt.learned_positions, 2048);
  EXPECT_EQ(gpt.max_position_embeddings, 2048);
  EXPECT_EQ(gpt.rope_theta, 0.0);
  // MPT: ALiBi over max_seq_len, no table.
  const ModelSpec mpt = LoadModel("mpt-30b");
  EXPECT_EQ(mpt.positions, PositionKind::kAlibi);
  EXPECT_EQ(mpt.max_position_embeddings, 8192);
  EXPECT_EQ(mpt.learned_positions, 0);
  EXPECT_EQ(mpt.rope_theta, 0.0);
}

TEST(HfConfigRopeErrors, BadScalingNamesTheField) {
  const std::string unknown =
      ParseError(LlamaWith(R"("hidden_size": 256, "rope_scaling": {"rope_type": "su", "factor": 2})"));
  EXPECT_CONTAINS(unknown, "dir/config.json");
  EXPECT_CONTAINS(unknown, "'rope_scaling.rope_type' is 'su'");
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": 256, "rope_scaling": {"rope_type": "llama3", "factor": 8,
      "low_freq_factor": 1, "original_max_position_embeddings": 8192})")),
                  "missing field 'rope_scaling.high_freq_factor'");
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": 256, "rope_scaling": {"factor": 8})")),
                  "missing field 'rope_scaling.rope_type'");
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": 256, "rope_scaling": {"rope_type": "llama3", "factor": 8,
      "low_freq_factor": 4, "high_freq_factor": 2, "original_max_position_embeddings": 8192})")),
                  "'rope_scaling.high_freq_factor' must be at least 'rope_scaling.low_freq_factor'");
  // Equal factors are valid (Llama 4 Scout ships 1 and 1: no smoothed band).
  EXPECT_EQ(Parse(LlamaWith(R"("hidden_size": 256, "rope_scaling": {"rope_type": "llama3", "factor": 16,
      "low_freq_factor": 1, "high_freq_factor": 1, "original_max_position_embeddings": 8192})"))
                .rope_scaling.high_freq_factor,
            1.0);
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": 256, "rope_scaling": {"rope_type": "linear", "factor": -2})")),
                  "'rope_scaling.factor' must be a positive number");
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": 256, "rope_scaling": "yarn")")),
                  "'rope_scaling' must be an object");
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": 256, "rope_theta": 0)")),
                  "'rope_theta' must be a positive number");
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": 256, "rope_theta": "big")")), "'rope_theta' must be a number");
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": 256, "max_position_embeddings": -1)")),
                  "'max_position_embeddings' must be a non-negative integer");
  EXPECT_CONTAINS(ParseError(R"({"architectures": ["GPTNeoXForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 256, "rotary_pct": 1.5})"),
                  "'rotary_pct' must be at most 1");
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": 256, "rope_parameters": {"rope_theta": -5})")),
                  "'rope_parameters.rope_theta' must be a positive number");
}

// Issue 9: hidden_size 4097 with 32 heads was accepted with head_dim 128 (4097 / 32 rounded down).
TEST(HfConfigErrors, HiddenNotDivisibleByHeadsWithoutHeadDim) {
  const std::string text = R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 4,
      "hidden_size": 4097, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 1000,
      "intermediate_size": 512)";
  const std::string msg = ParseError(text + "}");
  EXPECT_CONTAINS(msg, "dir/config.json");
  EXPECT_CONTAINS(msg, "'hidden_size' (4097) is not divisible by 'num_attention_heads' (32)");
  EXPECT_CONTAINS(msg, "'head_dim'");
  // An explicit head_dim is the model's own choice and is accepted.
  const ModelSpec m = Parse(text + R"(, "head_dim": 128})");
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_EQ(m.hidden, 4097);
  // The same rule for the GPT-2 and MPT field names.
  EXPECT_CONTAINS(ParseError(R"({"architectures": ["GPT2LMHeadModel"], "n_layer": 2, "n_embd": 100,
      "n_head": 3, "vocab_size": 10})"),
                  "'n_embd' (100) is not divisible by 'n_head' (3)");
  EXPECT_CONTAINS(ParseError(R"({"architectures": ["MPTForCausalLM"], "n_layers": 2, "d_model": 100,
      "n_heads": 3, "vocab_size": 10})"),
                  "'d_model' (100) is not divisible by 'n_heads' (3)");
  // MLA's head widths are their own fields: hidden % heads does not matter there.
  const ModelSpec mla = Parse(R"({"architectures": ["DeepseekV2ForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 100, "num_attention_heads": 3, "vocab_size": 10, "intermediate_size": 128,
      "kv_lora_rank": 16, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16})");
  EXPECT_EQ(mla.head_dim, 24);
}

// ---------------------------------------------------------------------------------------------
// Broken input: every error is an InputError naming the source and the field or line.

TEST(HfConfigErrors, MalformedJsonReportsLine) {
  const std::string msg = ParseError("{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"hidden_size\": 12 34\n}\n");
  EXPECT_CONTAINS(msg, "dir/config.json:3:");
  EXPECT_CONTAINS(msg, "invalid JSON");

  EXPECT_CONTAINS(ParseError("{\"a\": tru}"), "dir/config.json:1: invalid JSON");
  EXPECT_CONTAINS(ParseError("\n\n\n\n{\"a\": 1,,}"), "dir/config.json:5:");
  EXPECT_CONTAINS(ParseError("{\"a\": 1,\n \"b\": [1, 2,\n"), "dir/config.json:");  // truncated
  EXPECT_CONTAINS(ParseError(""), "dir/config.json:1: invalid JSON");
}

TEST(HfConfigErrors, NumberOverflowIsInputError) {
  // nlohmann::json throws out_of_range (not parse_error) for a number beyond double.
  const std::string msg = ParseError("{\"architectures\": [\"LlamaForCausalLM\"],\n \"rms_norm_eps\": 1e400}");
  EXPECT_CONTAINS(msg, "dir/config.json");
  EXPECT_CONTAINS(msg, "invalid JSON: number overflow parsing '1e400'");
}

TEST(HfConfigErrors, NotAnObject) {
  for (const char* text : {"[1, 2, 3]", "42", "\"LlamaForCausalLM\"", "null"}) {
    const std::string msg = ParseError(text);
    EXPECT_CONTAINS(msg, "dir/config.json");
    EXPECT_CONTAINS(msg, "must be a JSON object");
  }
}

TEST(HfConfigErrors, MissingOrBadArchitectures) {
  std::string msg = ParseError(R"({"hidden_size": 4096})");
  EXPECT_CONTAINS(msg, "dir/config.json");
  EXPECT_CONTAINS(msg, "missing field 'architectures'");

  for (const char* text :
       {R"({"architectures": []})", R"({"architectures": "LlamaForCausalLM"})", R"({"architectures": [7]})"}) {
    msg = ParseError(text);
    EXPECT_CONTAINS(msg, "dir/config.json");
    EXPECT_CONTAINS(msg, "'architectures'");
  }
}

TEST(HfConfigErrors, UnsupportedArchitectureListsSupported) {
  const std::string msg = ParseError(R"({"architectures": ["FalconForCausalLM"], "hidden_size": 8})");
  EXPECT_CONTAINS(msg, "dir/config.json");
  EXPECT_CONTAINS(msg, "unsupported architecture 'FalconForCausalLM'");
  for (const std::string& a : SupportedArchitectures()) EXPECT_CONTAINS(msg, a);
}

TEST(HfConfigErrors, MissingHiddenSize) {
  const std::string msg = ParseError(LlamaWith(R"("rope_theta": 10000)"));
  EXPECT_CONTAINS(msg, "dir/config.json");
  EXPECT_CONTAINS(msg, "missing field 'hidden_size'");
}

TEST(HfConfigErrors, MissingArchitectureSpecificFields) {
  // Mixtral without num_local_experts, DeepSeek without kv_lora_rank, GPT-2 without n_embd.
  EXPECT_CONTAINS(ParseError(R"({"architectures": ["MixtralForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 128,
      "num_experts_per_tok": 2})"),
                  "missing field 'num_local_experts'");
  EXPECT_CONTAINS(ParseError(R"({"architectures": ["DeepseekV3ForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 128,
      "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16})"),
                  "missing field 'kv_lora_rank'");
  EXPECT_CONTAINS(ParseError(R"({"architectures": ["GPT2LMHeadModel"], "n_layer": 2, "n_head": 4,
      "vocab_size": 10})"),
                  "missing field 'n_embd'");
}

TEST(HfConfigErrors, NegativeValue) {
  const std::string msg = ParseError(LlamaWith(R"("hidden_size": -4096)"));
  EXPECT_CONTAINS(msg, "dir/config.json");
  EXPECT_CONTAINS(msg, "'hidden_size'");
  EXPECT_CONTAINS(msg, "non-negative integer");
  EXPECT_CONTAINS(msg, "-4096");
}

TEST(HfConfigErrors, NonIntegralFloat) {
  const std::string msg = ParseError(LlamaWith(R"("hidden_size": 4096.5)"));
  EXPECT_CONTAINS(msg, "dir/config.json");
  EXPECT_CONTAINS(msg, "'hidden_size'");
  EXPECT_CONTAINS(msg, "4096.5");
  // Huge or negative floats are rejected too, not truncated.
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": 1e300)")), "'hidden_size'");
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": -2.0)")), "'hidden_size'");
}

TEST(HfConfigErrors, StringInsteadOfInt) {
  const std::string msg = ParseError(LlamaWith(R"("hidden_size": "4096")"));
  EXPECT_CONTAINS(msg, "dir/config.json");
  EXPECT_CONTAINS(msg, "'hidden_size'");
  EXPECT_CONTAINS(msg, "must be a non-negative integer");
}

TEST(HfConfigErrors, NestedOrLongValuesAreNotEchoedInFull) {
  // A deeply nested value used to be dump()ed recursively into the message: stack overflow. The
  // one JSON nesting bound (util/json_parse.h) now refuses it before anything walks it; a
  // shallow array is still named by its type, not echoed.
  const int depth = 100000;
  std::string msg = ParseError(LlamaWith(R"("hidden_size": )" + std::string(depth, '[') + std::string(depth, ']')));
  EXPECT_CONTAINS(msg, "dir/config.json");
  EXPECT_CONTAINS(msg, "JSON nested deeper than 64 levels");
  msg = ParseError(LlamaWith(R"("hidden_size": )" + std::string(3, '[') + std::string(3, ']')));
  EXPECT_CONTAINS(msg, "'hidden_size' must be a non-negative integer, got array");
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": {"a": 1})")), "got object");
  msg = ParseError(LlamaWith(R"("hidden_size": ")" + std::string(100000, 'x') + "\""));
  EXPECT_CONTAINS(msg, "'hidden_size'");
  EXPECT_LT(msg.size(), 200u);
}

TEST(HfConfigErrors, WrongTypesForBoolAndNumber) {
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": 256, "tie_word_embeddings": "yes")")),
                  "'tie_word_embeddings' must be true or false");
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": 256, "attention_dropout": "0.1")")),
                  "'attention_dropout' must be a number");
}

TEST(HfConfigErrors, ValueBeyond2To53) {
  // 2^53 + 1 does not survive a round trip through double.
  std::string msg = ParseError(LlamaWith(R"("hidden_size": 9007199254740993)"));
  EXPECT_CONTAINS(msg, "dir/config.json");
  EXPECT_CONTAINS(msg, "'hidden_size'");
  EXPECT_CONTAINS(msg, "too large");
  // Beyond int64 and uint64 as well.
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": 18446744073709551615)")), "'hidden_size'");
  EXPECT_CONTAINS(ParseError(LlamaWith(R"("hidden_size": 99999999999999999999999)")), "'hidden_size'");
}

TEST(HfConfigErrors, HeadsNotDivisibleByKvHeads) {
  const std::string msg = ParseError(R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 4,
      "hidden_size": 384, "num_attention_heads": 12, "num_key_value_heads": 5, "vocab_size": 1000,
      "intermediate_size": 512})");
  EXPECT_CONTAINS(msg, "dir/config.json");
  EXPECT_CONTAINS(msg, "num_attention_heads (12)");
  EXPECT_CONTAINS(msg, "num_key_value_heads (5)");
}

TEST(HfConfigErrors, TopkExceedsExperts) {
  const std::string msg = ParseError(R"({"architectures": ["MixtralForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 128,
      "num_local_experts": 4, "num_experts_per_tok": 6})");
  EXPECT_CONTAINS(msg, "dir/config.json");
  EXPECT_CONTAINS(msg, "num_experts_per_tok (6)");
  EXPECT_CONTAINS(msg, "experts (4)");
}

TEST(HfConfigErrors, ZeroLayers) {
  const std::string msg = ParseError(R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 0,
      "hidden_size": 256, "num_attention_heads": 8, "vocab_size": 1000, "intermediate_size": 512})");
  EXPECT_CONTAINS(msg, "dir/config.json");
  EXPECT_CONTAINS(msg, "'num_hidden_layers' must be a positive integer, got 0");
}

TEST(HfConfigErrors, ZeroHeadsAndFirstDenseBeyondLayers) {
  EXPECT_CONTAINS(ParseError(R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 256, "num_attention_heads": 0, "vocab_size": 1000, "intermediate_size": 512})"),
                  "'num_attention_heads' must be a positive integer");
  EXPECT_CONTAINS(ParseError(R"({"architectures": ["DeepseekV3ForCausalLM"], "num_hidden_layers": 4,
      "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 128,
      "kv_lora_rank": 16, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16,
      "n_routed_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
      "first_k_dense_replace": 9})"),
                  "first_k_dense_replace");
}

// ---------------------------------------------------------------------------------------------
// LoadModel and ModelFromDims

TEST(LoadModel, CatalogIdIsCaseInsensitive) {
  const ModelSpec m = LoadModel("Llama-3.1-70B");
  EXPECT_EQ(m.name, "llama-3.1-70b");
  EXPECT_EQ(m.layers, 80);
  EXPECT_EQ(m.hidden, 8192);
  EXPECT_EQ(m.kv_heads, 8);
}

TEST(LoadModel, UnknownIdListsCatalog) {
  const std::string msg = InputErrorOf([] { LoadModel("llama-9-9000b"); });
  EXPECT_CONTAINS(msg, "unknown model 'llama-9-9000b'");
  EXPECT_CONTAINS(msg, "deepseek-v3");
  EXPECT_CONTAINS(msg, "llama-3.1-70b");
  EXPECT_CONTAINS(msg, "qwen3-235b-a22b");
  EXPECT_CONTAINS(InputErrorOf([] { LoadModel(""); }), "`model`");
}

class LoadModelFiles : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(testing::TempDir()) / ("paratune_hf_" + std::to_string(::getpid()) + "_" +
                                                        testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string Write(const std::string& rel, const std::string& text) {
    const auto p = dir_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::filesystem::path dir_;
};

TEST_F(LoadModelFiles, NonexistentPath) {
  const std::string path = (dir_ / "nope" / "config.json").string();
  const std::string msg = InputErrorOf([&] { LoadModel(path); });
  EXPECT_CONTAINS(msg, path);
  EXPECT_CONTAINS(msg, "cannot read");
}

TEST_F(LoadModelFiles, DirectoryPath) {
  const std::string path = dir_.string();
  const std::string msg = InputErrorOf([&] { LoadModel(path); });
  EXPECT_CONTAINS(msg, path);
  EXPECT_CONTAINS(msg, "is a directory");
}

TEST_F(LoadModelFiles, ConfigJsonNamedAfterItsDirectory) {
  const std::string path = Write("my-llama/config.json", LlamaWith(R"("hidden_size": 256)"));
  const ModelSpec m = LoadModel(path);
  EXPECT_EQ(m.name, "my-llama");
  EXPECT_EQ(m.hidden, 256);
  const ModelSpec other = LoadModel(Write("tiny.json", LlamaWith(R"("hidden_size": 128)")));
  EXPECT_EQ(other.name, "tiny");
  EXPECT_EQ(other.head_dim, 16);
}

TEST_F(LoadModelFiles, BrokenFileNamesPathAndLine) {
  const std::string path = Write("bad/config.json", "{\n\"architectures\": [\"LlamaForCausalLM\"]\n\"x\": 1}");
  const std::string msg = InputErrorOf([&] { LoadModel(path); });
  EXPECT_CONTAINS(msg, path + ":3:");
}

TEST(ModelFromDims, Valid) {
  InlineDims d;
  d.layers = 4;
  d.hidden = 512;
  d.ffn = 1024;
  d.heads = 8;
  d.kv_heads = 2;
  d.vocab = 1000;
  const ModelSpec m = ModelFromDims(d);
  EXPECT_EQ(m.name, "inline");
  EXPECT_EQ(m.head_dim, 64);
  EXPECT_EQ(m.kv_heads, 2);
  EXPECT_EQ(m.ffn_hidden, 1024);
  EXPECT_EQ(m.mlp, MlpKind::kGated);
  EXPECT_FALSE(m.is_moe());

  d.experts = 8;
  d.topk = 2;
  d.gated_mlp = false;
  const ModelSpec moe = ModelFromDims(d);
  EXPECT_EQ(moe.experts, 8);
  EXPECT_EQ(moe.moe_ffn_hidden, 1024);
  EXPECT_EQ(moe.ffn_hidden, 0);
  EXPECT_EQ(moe.moe_layers(), 4);
  EXPECT_EQ(moe.mlp, MlpKind::kPlain);
}

TEST(ModelFromDims, BadDims) {
  InlineDims good;
  good.layers = 4;
  good.hidden = 512;
  good.ffn = 1024;
  good.heads = 8;
  good.vocab = 1000;

  InlineDims d = good;
  d.hidden = 500;
  EXPECT_CONTAINS(InputErrorOf([&] { ModelFromDims(d); }), "`hidden` (500) is not divisible by `heads` (8)");

  d = good;
  d.layers = 0;
  std::string msg = InputErrorOf([&] { ModelFromDims(d); });
  EXPECT_CONTAINS(msg, "inline model");
  EXPECT_CONTAINS(msg, "'num_hidden_layers'");

  d = good;
  d.heads = 0;
  EXPECT_CONTAINS(InputErrorOf([&] { ModelFromDims(d); }), "'num_attention_heads'");

  d = good;
  d.vocab = -1;
  EXPECT_CONTAINS(InputErrorOf([&] { ModelFromDims(d); }), "'vocab_size'");

  d = good;
  d.kv_heads = 3;
  EXPECT_CONTAINS(InputErrorOf([&] { ModelFromDims(d); }), "num_key_value_heads (3)");

  d = good;
  d.experts = 4;
  d.topk = 0;
  EXPECT_CONTAINS(InputErrorOf([&] { ModelFromDims(d); }), "`topk` must be positive");

  d = good;
  d.experts = 4;
  d.topk = 5;
  EXPECT_CONTAINS(InputErrorOf([&] { ModelFromDims(d); }), "num_experts_per_tok (5)");

  d = good;
  d.ffn = 0;
  EXPECT_CONTAINS(InputErrorOf([&] { ModelFromDims(d); }), "'intermediate_size'");
}

}  // namespace
}  // namespace paratune

namespace paratune {
namespace {

// GPT-OSS: every linear with bias, sinks, router bias, experts in every layer, layer_types.
TEST(HfConfig, GptOss) {
  const std::string base = R"({"architectures": ["GptOssForCausalLM"], "num_hidden_layers": 4, "hidden_size": 64,
      "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100, "intermediate_size": 32,
      "num_local_experts": 8, "num_experts_per_tok": 2, "sliding_window": 8)";
  const ModelSpec m = Parse(base + R"(, "layer_types": ["sliding_attention", "full_attention", "sliding_attention",
      "full_attention"]})");
  EXPECT_TRUE(m.linear_bias);
  EXPECT_TRUE(m.attention_sinks);
  EXPECT_TRUE(m.router_bias);
  EXPECT_EQ(m.experts, 8);
  EXPECT_EQ(m.moe_layers(), 4);
  EXPECT_EQ(m.moe_ffn_hidden, 32);
  EXPECT_EQ(m.sliding_window, 8);
  EXPECT_EQ(m.sliding_window_layers, 2);
  EXPECT_EQ(m.rope_theta, 150000.0);  // GptOssConfig default
  // layer_types absent: even layers slide (GptOssConfig's default).
  EXPECT_EQ(Parse(base + "}").sliding_window_layers, 2);
  EXPECT_CONTAINS(ParseError(base + R"(, "layer_types": ["sliding_attention"]})"),
                  "field 'layer_types' must be a list of num_hidden_layers (4) strings");
  EXPECT_CONTAINS(
      ParseError(base + R"(, "layer_types": ["sliding_attention", "chunked", "full_attention", "full_attention"]})"),
      "field 'layer_types' has 'chunked'");
}

// Llama 4: the decoder's fields nested in text_config; MoE every interleave_moe_layer_step-th
// layer with one shared expert; dense layers of intermediate_size_mlp.
TEST(HfConfig, Llama4NestsTextConfig) {
  const std::string text = R"("text_config": {"num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 4,
      "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100, "intermediate_size": 32, "intermediate_size_mlp": 96,
      "num_local_experts": 8, "num_experts_per_tok": 1, "interleave_moe_layer_step": 2, "use_qk_norm": true)";
  const ModelSpec m = Parse(R"({"architectures": ["Llama4ForConditionalGeneration"], )" + text + "}}");
  EXPECT_EQ(m.layers, 4);
  EXPECT_EQ(m.moe_layers(), 2);
  EXPECT_FALSE(m.is_moe_layer(0));
  EXPECT_TRUE(m.is_moe_layer(1));
  EXPECT_EQ(m.ffn_hidden, 96);
  EXPECT_EQ(m.moe_ffn_hidden, 32);
  EXPECT_EQ(m.shared_experts, 1);
  EXPECT_EQ(m.shared_ffn_hidden, 32);
  EXPECT_FALSE(m.qk_norm);  // Llama 4's QK L2 norm has no weights
  EXPECT_EQ(m.rope_theta, 500000.0);
  // An explicit moe_layers list must be the interleaved pattern.
  EXPECT_EQ(Parse(R"({"architectures": ["Llama4ForConditionalGeneration"], )" + text + R"(, "moe_layers": [1, 3]}})")
                .moe_layers(),
            2);
  EXPECT_CONTAINS(
      ParseError(R"({"architectures": ["Llama4ForConditionalGeneration"], )" + text + R"(, "moe_layers": [0]}})"),
      "field 'text_config.moe_layers' is not every interleave_moe_layer_step-th layer");
  EXPECT_CONTAINS(ParseError(R"({"architectures": ["Llama4ForConditionalGeneration"]})"),
                  "missing field 'text_config'");
  EXPECT_CONTAINS(
      ParseError(R"({"architectures": ["Llama4ForConditionalGeneration"], "text_config": {"hidden_size": 64}})"),
      "missing field 'text_config.num_hidden_layers'");
}

// Every Hugging Face repository the catalog maps is a catalog entry.
TEST(HfRepositories, EveryIdIsInTheCatalog) {
  const std::vector<std::string> ids = CatalogModelIds();
  for (const HfRepository& r : HfRepositories()) {
    SCOPED_TRACE(r.repo);
    EXPECT_NE(std::find(ids.begin(), ids.end(), r.id), ids.end());
    EXPECT_EQ(CatalogIdForHfRepository(r.repo), r.id);
  }
  EXPECT_EQ(CatalogIdForHfRepository("META-LLAMA/llama-3.1-8b"), "llama-3.1-8b");
  EXPECT_EQ(CatalogIdForHfRepository("acme/none"), "");
}

}  // namespace
}  // namespace paratune
