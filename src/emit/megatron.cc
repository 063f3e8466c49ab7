// Megatron-LM (Megatron-Core) arguments. Flag names, types and choices from
// megatron/training/arguments.py and the config dataclasses it turns into flags
// (TransformerConfig, ModelParallelConfig, TokenizerConfig, DistributedInitConfig); the commit is
// in docs/frameworks.md, the mapping in its "Megatron-LM" section.
#include <cctype>

#include <fmt/format.h>

#include "emit/emit.h"

namespace paratune {
namespace {

class Args {
 public:
  void Switch(const char* flag) { words_.push_back({flag, ""}); }
  template <class T>
  void Value(const char* flag, const T& v) { words_.push_back({flag, fmt::format("{}", v)}); }
  std::string Text() const {
    std::string s;
    for (size_t i = 0; i < words_.size(); ++i) {
      s += words_[i].first;
      if (!words_[i].second.empty()) s += " " + Quote(words_[i].second);
      s += i + 1 < words_.size() ? " \\\n" : "\n";
    }
    return s;
  }

 private:
  // Single-quotes a value that a shell would otherwise interpret, e.g. "([0]*3+[1]*58)".
  static std::string Quote(const std::string& v) {
    for (char c : v)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return "'" + v + "'";
    return v;
  }
  std::vector<std::pair<std::string, std::string>> words_;
};

}  // namespace

Emitted EmitMegatron(const EmitInput& in) {
  const ModelSpec& m = in.model;
  const Layout& l = in.layout;
  const Training& t = in.training;
  Emitted out;
  Args a;
  // Model.
  a.Value("--num-layers", m.layers);
  a.Value("--hidden-size", m.hidden);
  a.Value("--ffn-hidden-size", m.ffn_hidden > 0 ? m.ffn_hidden : m.moe_ffn_hidden);
  a.Value("--num-attention-heads", m.heads);
  if (m.attention == AttentionKind::kMla) {
    a.Switch("--multi-latent-attention");
    if (m.q_lora_rank > 0) a.Value("--q-lora-rank", m.q_lora_rank);
    a.Value("--kv-lora-rank", m.kv_lora_rank);
    a.Value("--qk-head-dim", m.qk_nope_head_dim);
    a.Value("--qk-pos-emb-head-dim", m.qk_rope_head_dim);
    a.Value("--v-head-dim", m.v_head_dim);
  } else {
    a.Value("--kv-channels", m.head_dim);
    if (m.kv_heads != m.heads) {
      a.Switch("--group-query-attention");
      a.Value("--num-query-groups", m.kv_heads);
    }
  }
  if (m.mlp == MlpKind::kGated) a.Switch("--swiglu");
  a.Value("--normalization", m.norm == NormKind::kRmsNorm ? "RMSNorm" : "LayerNorm");
  if (!m.tied_embeddings) a.Switch("--untie-embeddings-and-output-weights");
  if (!m.linear_bias) a.Switch("--disable-bias-linear");
  if (m.qkv_bias && !m.linear_bias) a.Switch("--add-qkv-bias");
  if (m.qk_norm) a.Switch("--qk-layernorm");
  if (!m.dropout) {
    a.Value("--attention-dropout", "0.0");
    a.Value("--hidden-dropout", "0.0");
  }
  if (m.learned_positions > 0) {
    a.Value("--position-embedding-type", "learned_absolute");
    a.Value("--max-position-embeddings", m.learned_positions);
  } else {
    a.Value("--position-embedding-type", "rope");
    a.Value("--max-position-embeddings", t.seq);
  }
  a.Value("--vocab-size", m.vocab);
  out.notes.push_back("--vocab-size stands for the tokenizer: a real run passes --tokenizer-type and "
                      "--tokenizer-model, and Megatron pads the vocabulary to a multiple of "
                      "--make-vocab-size-divisible-by (128) times tp");
  if (m.is_moe()) {
    a.Value("--num-experts", m.experts);
    a.Value("--moe-router-topk", m.topk);
    a.Value("--moe-ffn-hidden-size", m.moe_ffn_hidden);
    if (m.shared_experts > 0) {
      a.Value("--moe-shared-expert-intermediate-size", m.shared_experts * m.shared_ffn_hidden);
      if (m.shared_expert_gate) a.Switch("--moe-shared-expert-gate");
    }
    if (m.first_dense_layers > 0 && m.moe_layer_freq <= 1) {
      a.Value("--moe-layer-freq", fmt::format("([0]*{}+[1]*{})", m.first_dense_layers, m.layers - m.first_dense_layers));
    } else if (m.first_dense_layers > 0) {
      std::string p = fmt::format("[0]*{}", m.first_dense_layers);
      const int64_t rest = m.layers - m.first_dense_layers;
      p += fmt::format("+([0]*{}+[1])*{}", m.moe_layer_freq - 1, rest / m.moe_layer_freq);
      if (rest % m.moe_layer_freq) p += fmt::format("+[0]*{}", rest % m.moe_layer_freq);
      a.Value("--moe-layer-freq", "(" + p + ")");
    } else if (m.moe_layer_freq > 1) {
      a.Value("--moe-layer-freq", m.moe_layer_freq);
    }
    a.Switch("--moe-grouped-gemm");
    a.Value("--moe-token-dispatcher-type", "alltoall");
  }
  // Training shape.
  a.Value("--seq-length", t.seq);
  a.Value("--micro-batch-size", l.mbs);
  a.Value("--global-batch-size", t.global_batch);
  // Layout.
  a.Value("--tensor-model-parallel-size", l.tp);
  a.Value("--pipeline-model-parallel-size", l.pp);
  if (l.vp > 1) a.Value("--num-layers-per-virtual-pipeline-stage", m.layers / (static_cast<int64_t>(l.pp) * l.vp));
  a.Value("--context-parallel-size", l.cp);
  if (m.is_moe()) {
    a.Value("--expert-model-parallel-size", l.ep);
    a.Value("--expert-tensor-parallel-size", l.expert_tp());
  }
  if (l.sequence_parallel()) a.Switch("--sequence-parallel");
  if (l.zero == 1) {
    a.Switch("--use-distributed-optimizer");
  } else if (l.zero >= 2) {
    // Megatron-FSDP: optim_grads shards optimizer states and gradients (ZeRO-2),
    // optim_grads_params also the parameters (ZeRO-3); it requires the fsdp_dtensor format.
    a.Switch("--use-megatron-fsdp");
    a.Value("--data-parallel-sharding-strategy", l.zero == 2 ? "optim_grads" : "optim_grads_params");
    a.Value("--ckpt-format", "fsdp_dtensor");
  }
  if (l.recompute == Recompute::kSelective) {
    a.Value("--recompute-granularity", "selective");
  } else if (l.recompute == Recompute::kFull) {
    a.Value("--recompute-granularity", "full");
    a.Value("--recompute-method", "uniform");
    a.Value("--recompute-num-layers", 1);
  }
  // Precision: BF16 parameters and activations; FP8/FP4 GEMMs through Transformer Engine.
  a.Switch("--bf16");
  const bool blackwell = in.cluster.gpu.generation == "blackwell";
  if (t.precision == Precision::kFp8) {
    a.Value("--fp8-format", blackwell ? "e4m3" : "hybrid");
    a.Value("--fp8-recipe", blackwell ? "mxfp8" : "tensorwise");
  } else if (t.precision == Precision::kFp4) {
    a.Value("--fp4-format", "e2m1");
    a.Value("--fp4-recipe", "nvfp4");
  }
  // Overlap switches (all off by default in Megatron-LM).
  if (l.overlap_grad_reduce) a.Switch("--overlap-grad-reduce");
  if (l.overlap_param_gather && l.zero >= 1) a.Switch("--overlap-param-gather");
  if (l.overlap_tp_comm && l.tp > 1) a.Switch("--tp-comm-overlap");
  if (!l.overlap_pp_comm) a.Switch("--no-overlap-p2p-communication");
  if (!l.flash_attention) a.Value("--attention-backend", "unfused");
  if (l.recompute == Recompute::kSelective)
    out.notes.push_back("selective recomputation: Megatron's default --recompute-modules (core_attn) is "
                        "what paratune models");
  out.text = a.Text();
  return out;
}

}  // namespace paratune
