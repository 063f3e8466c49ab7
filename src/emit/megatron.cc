// Megatron-LM (Megatron-Core) arguments. Flag names, types and choices from
// megatron/training/arguments.py and the config dataclasses it turns into flags
// (TransformerConfig, ModelParallelConfig, TokenizerConfig, DistributedInitConfig); the commit is
// in docs/frameworks.md, the mapping in its "Megatron-LM" section.
#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "emit/emit.h"
#include "layout/pipeline_split.h"

namespace paratune {
namespace {

class Args {
 public:
  void Switch(const char* flag) { words_.push_back({flag, ""}); }
  template <class T>
  void Value(const char* flag, const T& v) {
    words_.push_back({flag, Quote(fmt::format("{}", v))});
  }
  // A flag taking several words (argparse nargs="*"), each a plain identifier.
  void Words(const char* flag, const std::string& space_separated) { words_.push_back({flag, space_separated}); }
  std::string Text() const {
    std::string s;
    for (size_t i = 0; i < words_.size(); ++i) {
      s += words_[i].first;
      if (!words_[i].second.empty()) s += " " + words_[i].second;
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

// Megatron-LM's fixed values where a config's scaling has more parameters than its flags:
// RotaryEmbedding._apply_scaling (megatron/core/models/common/embeddings/rotary_pos_embedding.py)
// uses low_freq_factor 1, high_freq_factor 4, original_max_position_embeddings 8192 and takes
// only the factor from --rope-scaling-factor; MLATransformerConfig
// (megatron/core/transformer/transformer_config.py) has original_max_position_embeddings 4096,
// beta_fast 32, beta_slow 1 with no flag (argument_utils.py _apply_yarn_config_from_args leaves
// MLA to them).
constexpr double kMegatronLlama3Low = 1, kMegatronLlama3High = 4;
constexpr int64_t kMegatronLlama3Original = 8192;
constexpr int64_t kMegatronMlaYarnOriginal = 4096;
constexpr double kMegatronMlaYarnBetaFast = 32, kMegatronMlaYarnBetaSlow = 1;

// Positions: --position-embedding-type, --max-position-embeddings and the rotary flags
// (arguments.py _add_network_size_args and _add_mla_args).
// Megatron requires --max-position-embeddings and asserts it is at least --seq-length
// (arguments.py validate_args): the model's, or the sequence length where the model gives none
// or a smaller one (said in a note).
int64_t MaxPositions(const ModelSpec& m, const Training& t, std::vector<std::string>& notes) {
  int64_t max_pos = m.max_position_embeddings;
  if (max_pos <= 0) {
    max_pos = t.seq;
    notes.push_back(
        fmt::format("the model gives no max_position_embeddings: --max-position-embeddings is "
                    "the sequence length {}",
                    t.seq));
  } else if (t.seq > max_pos) {
    notes.push_back(fmt::format(
        "--seq-length {} exceeds the model's max_position_embeddings {}; Megatron asserts "
        "--max-position-embeddings >= --seq-length, so {} is emitted{}",
        t.seq, max_pos, t.seq,
        m.positions == PositionKind::kLearned ? " and the learned position table grows to that many rows" : ""));
    max_pos = t.seq;
  }
  return max_pos;
}

// A RoPE scaling Megatron cannot express: the note saying what is emitted instead.
void UnsupportedScaling(const RopeScaling& r, const std::string& what, std::vector<std::string>& notes) {
  notes.push_back(
      fmt::format("RoPE scaling '{}' (factor {}) {}; emitted without it, so positions beyond the "
                  "original context differ from the config",
                  RopeScalingName(r.kind), r.factor, what));
}

// MLA's RoPE type and YaRN flags (multi_latent_attention.py, by --rope-type).
void EmitMlaRopeScaling(const RopeScaling& r, Args& a, std::vector<std::string>& notes) {
  if (r.kind != RopeScalingKind::kYarn) {
    a.Value("--rope-type", "rope");
    if (r.kind != RopeScalingKind::kNone)
      UnsupportedScaling(r, "cannot be expressed for MLA (--rope-type rope or yarn)", notes);
    return;
  }
  a.Value("--rope-type", "yarn");
  a.Value("--rotary-scaling-factor", r.factor);
  a.Value("--mscale", r.mscale);
  a.Value("--mscale-all-dim", r.mscale_all_dim);
  if (r.original_max_positions != kMegatronMlaYarnOriginal || r.beta_fast != kMegatronMlaYarnBetaFast ||
      r.beta_slow != kMegatronMlaYarnBetaSlow)
    notes.push_back(
        fmt::format("YaRN for MLA: Megatron has no flags for original_max_position_embeddings, beta_fast, beta_slow "
                    "and uses MLATransformerConfig's {}, {}, {}; the config has {}, {}, {}",
                    kMegatronMlaYarnOriginal, kMegatronMlaYarnBetaFast, kMegatronMlaYarnBetaSlow,
                    r.original_max_positions, r.beta_fast, r.beta_slow));
}

// The RoPE scaling flags of a GQA model: llama3, linear or YaRN.
void EmitRopeScaling(const RopeScaling& r, Args& a, std::vector<std::string>& notes) {
  if (r.kind == RopeScalingKind::kLlama3) {
    a.Switch("--use-rope-scaling");
    a.Value("--rope-scaling-factor", r.factor);
    if (r.low_freq_factor != kMegatronLlama3Low || r.high_freq_factor != kMegatronLlama3High ||
        r.original_max_positions != kMegatronLlama3Original)
      notes.push_back(fmt::format(
          "llama3 RoPE scaling: Megatron takes only the factor (--rope-scaling-factor) and fixes low_freq_factor "
          "{}, high_freq_factor {}, original_max_position_embeddings {}; the config has {}, {}, {}",
          kMegatronLlama3Low, kMegatronLlama3High, kMegatronLlama3Original, r.low_freq_factor, r.high_freq_factor,
          r.original_max_positions));
  } else if (r.kind == RopeScalingKind::kLinear) {
    // Linear scaling divides the positions by the factor (transformers
    // _compute_linear_scaling_rope_parameters), which is Megatron's
    // --rotary-seq-len-interpolation-factor (an int in arguments.py).
    if (r.factor == std::floor(r.factor) && r.factor >= 1)
      a.Value("--rotary-seq-len-interpolation-factor", static_cast<int64_t>(r.factor));
    else
      UnsupportedScaling(r, "needs an integer factor for --rotary-seq-len-interpolation-factor", notes);
  } else if (r.kind == RopeScalingKind::kYarn) {
    a.Value("--rotary-scaling-factor", r.factor);
    a.Value("--yarn-original-max-position-embeddings", r.original_max_positions);
    a.Value("--yarn-beta-fast", r.beta_fast);
    a.Value("--yarn-beta-slow", r.beta_slow);
    a.Value("--mscale", r.mscale);
    a.Value("--mscale-all-dim", r.mscale_all_dim);
  } else if (r.kind != RopeScalingKind::kNone) {
    UnsupportedScaling(r,
                       "has no Megatron-LM equivalent (rope: --use-rope-scaling for llama3, "
                       "--rotary-seq-len-interpolation-factor for linear; yarn)",
                       notes);
  }
}

void EmitPositions(const ModelSpec& m, const Training& t, Args& a, std::vector<std::string>& notes) {
  const int64_t max_pos = MaxPositions(m, t, notes);
  switch (m.positions) {
    case PositionKind::kLearned:
      a.Value("--position-embedding-type", "learned_absolute");
      a.Value("--max-position-embeddings", std::max(max_pos, m.learned_positions));
      return;
    case PositionKind::kAlibi:
      notes.push_back(
          "ALiBi attention biases (MPT) have no Megatron-LM position type (learned_absolute, rope, "
          "yarn, mrope, relative, none): emitted none, with the same parameters and FLOPs but "
          "no position information");
      [[fallthrough]];
    case PositionKind::kNone:
      a.Value("--position-embedding-type", "none");
      a.Value("--max-position-embeddings", max_pos);
      return;
    case PositionKind::kRotary:
      break;
  }
  const RopeScaling& r = m.rope_scaling;
  const bool mla = m.attention == AttentionKind::kMla;
  // MLA applies its own rotary embedding (multi_latent_attention.py, by --rope-type); the GPT
  // model's position type stays rope, as in Megatron's DeepSeek-V3 example
  // (examples/megatron_fsdp/sbatch_mfsdp_deepseek_v3.sh).
  const bool yarn_type = !mla && r.kind == RopeScalingKind::kYarn;
  a.Value("--position-embedding-type", yarn_type ? "yarn" : "rope");
  a.Value("--max-position-embeddings", max_pos);
  // --rotary-base is an int in arguments.py.
  const auto base = static_cast<int64_t>(std::llround(m.rope_theta));
  if (static_cast<double>(base) != m.rope_theta)
    notes.push_back(
        fmt::format("rope_theta {} is not an integer; Megatron's --rotary-base takes an int: {}", m.rope_theta, base));
  a.Value("--rotary-base", base);
  if (m.rotary_percent != 1.0) a.Value("--rotary-percent", m.rotary_percent);
  if (mla)
    EmitMlaRopeScaling(r, a, notes);
  else
    EmitRopeScaling(r, a, notes);
  if (r.attention_factor > 0)
    notes.push_back(
        fmt::format("the config's explicit RoPE attention_factor {} has no Megatron flag: Megatron "
                    "derives it from --mscale and --mscale-all-dim",
                    r.attention_factor));
}

// The pipeline split (layout/pipeline_split.h DescribeSplit) in Megatron's own terms, and the
// schedule: Megatron runs interleaved 1F1B whenever a virtual pipeline size is set and 1F1B
// otherwise (megatron/core/pipeline_parallel/schedules.py get_forward_backward_func); it has no
// GPipe and no zero-bubble schedule at the checked commit.
void EmitPipeline(const ModelSpec& m, const Layout& l, Args& a, std::vector<std::string>& notes) {
  const int64_t chunks = static_cast<int64_t>(l.pp) * l.vp;
  const SplitDescription d = DescribeSplit(m.layers, l.pp, l.vp, l.pp_layout);
  switch (d.kind) {
    case SplitKind::kEven:
      if (l.vp > 1) a.Value("--num-layers-per-virtual-pipeline-stage", m.layers / chunks);
      break;
    case SplitKind::kAccountEmbedding:
    case SplitKind::kAccountLoss:
    case SplitKind::kAccountBoth: {
      // arguments.py validate_args: L + 1 per flag must divide by pp, and by pp*vp with
      // --num-layers-per-virtual-pipeline-stage, which it counts the same way.
      const bool e = d.kind != SplitKind::kAccountLoss, lo = d.kind != SplitKind::kAccountEmbedding;
      if (e) a.Switch("--account-for-embedding-in-pipeline-split");
      if (lo) a.Switch("--account-for-loss-in-pipeline-split");
      if (l.vp > 1) a.Value("--num-layers-per-virtual-pipeline-stage", (m.layers + e + lo) / chunks);
      break;
    }
    case SplitKind::kFirstLast:
      // Uneven first/last stages need the virtual size as a count (arguments.py validate_args).
      if (d.first > 0) a.Value("--decoder-first-pipeline-num-layers", d.first);
      if (d.last > 0) a.Value("--decoder-last-pipeline-num-layers", d.last);
      if (l.vp > 1) a.Value("--num-virtual-stages-per-pipeline-rank", l.vp);
      break;
    case SplitKind::kCustom: {
      // pipeline_parallel_layer_layout.py: chunks in vpp-major order split by '|', E first, the
      // MTP layers and L last (validate_layer_layout); "t*n" repeats a layer.
      std::string s;
      for (size_t k = 0; k < l.pp_layout.size(); ++k) {
        if (k) s += "|";
        if (k == 0) s += "E";
        const int n = l.pp_layout[k];
        s += n == 1 ? "t" : fmt::format("t*{}", n);
        if (k + 1 == l.pp_layout.size()) {
          if (m.mtp_layers > 0) s += m.mtp_layers == 1 ? "m" : fmt::format("m*{}", m.mtp_layers);
          s += "L";
        }
      }
      a.Value("--pipeline-model-parallel-layout", s);
      break;
    }
  }
  switch (l.pipeline_schedule()) {
    case ScheduleKind::k1F1B:
    case ScheduleKind::kInterleaved:
      break;
    case ScheduleKind::kGpipe:
      notes.push_back(
          "schedule gpipe: Megatron-LM has no GPipe schedule; it runs 1F1B with these arguments (same "
          "bubble, fewer micro-batches in flight)");
      break;
    case ScheduleKind::kZbH1:
      notes.push_back(fmt::format(
          "schedule zb-h1: Megatron-LM has no zero-bubble schedule; these arguments run 1F1B. ZB-H1 runs on the "
          "authors' Megatron-LM fork (github.com/sail-sg/zero-bubble-pipeline-parallelism) with "
          "--enable-zero-bubble --zero-bubble-max-pending-backward {} (pp pending backwards: ZB-H1's memory)",
          l.pp));
      break;
  }
}

// Attention: multi-latent (_add_mla_args) or multi-head / grouped-query.
void EmitAttention(const ModelSpec& m, Args& a) {
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
}

// Model features paratune counts that Megatron-LM's arguments cannot carry (the run would lack
// them), each a note with what is lost.
void NoteModelFeaturesNotEmitted(const ModelSpec& m, std::vector<std::string>& notes) {
  // InternLM's bias on the attention output projection: Megatron biases every linear layer
  // (no --disable-bias-linear) or Q, K and V only (--add-qkv-bias).
  if (m.o_bias && !m.linear_bias)
    notes.push_back(
        fmt::format("the attention output projection's bias (InternLM) is not emitted: Megatron has "
                    "--add-qkv-bias only; the Megatron model lacks its {} parameters",
                    m.hidden * m.layers));
  // GPT-OSS features paratune's Megatron arguments do not carry (the run would lack them).
  if (m.attention_sinks)
    notes.push_back(
        fmt::format("attention sinks (one learned logit per head, GPT-OSS) are not emitted: the "
                    "Megatron model lacks their {} parameters",
                    m.heads * m.layers));
  if (m.router_bias && m.is_moe())
    notes.push_back("the MoE router's bias (GPT-OSS) is not emitted: Megatron's router has a weight only");
  if (m.sliding_window_layers > 0)
    notes.push_back(
        fmt::format("sliding-window attention ({} of {} layers, window {}) is not emitted: the "
                    "Megatron model attends to the whole sequence in every layer",
                    m.sliding_window_layers, m.layers, m.sliding_window));
}

// The model's shape and features (megatron/training/arguments.py _add_network_size_args).
void EmitModel(const ModelSpec& m, const Training& t, Args& a, std::vector<std::string>& notes) {
  a.Value("--num-layers", m.layers);
  a.Value("--hidden-size", m.hidden);
  // Without dense layers (Mixtral) there is no dense width: --moe-ffn-hidden-size carries the
  // experts' and Megatron's default --ffn-hidden-size goes unused.
  if (m.ffn_hidden > 0) a.Value("--ffn-hidden-size", m.ffn_hidden);
  a.Value("--num-attention-heads", m.heads);
  EmitAttention(m, a);
  if (m.mlp == MlpKind::kGated) a.Switch("--swiglu");
  a.Value("--normalization", m.norm == NormKind::kRmsNorm ? "RMSNorm" : "LayerNorm");
  if (m.architecture == "MPTForCausalLM" && m.norm == NormKind::kRmsNorm)
    notes.push_back(
        "MPT's bias-free LayerNorm has no Megatron-LM equivalent: emitted RMSNorm, the same "
        "parameters (paratune counts it so)");
  if (!m.tied_embeddings) a.Switch("--untie-embeddings-and-output-weights");
  if (!m.linear_bias) a.Switch("--disable-bias-linear");
  if (m.qkv_bias && !m.linear_bias) a.Switch("--add-qkv-bias");
  if (m.qk_norm) a.Switch("--qk-layernorm");
  NoteModelFeaturesNotEmitted(m, notes);
  if (!m.dropout) {
    a.Value("--attention-dropout", "0.0");
    a.Value("--hidden-dropout", "0.0");
  }
  EmitPositions(m, t, a, notes);
  a.Value("--vocab-size", m.vocab);
  notes.push_back(
      "--vocab-size stands for the tokenizer: a real run passes --tokenizer-type and "
      "--tokenizer-model, and Megatron pads the vocabulary to a multiple of "
      "--make-vocab-size-divisible-by (128) times tp");
}

// --moe-layer-freq: every N-th layer, or a pattern with leading dense layers.
void EmitMoeLayerFreq(const ModelSpec& m, Args& a) {
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
}

// The experts, the router as the model defines it, and the stack's MoE features.
void EmitMoe(const ModelSpec& m, const Layout& l, Args& a) {
  a.Value("--num-experts", m.experts);
  a.Value("--moe-router-topk", m.topk);
  a.Value("--moe-ffn-hidden-size", m.moe_ffn_hidden);
  if (m.routing_groups > 0) {
    a.Value("--moe-router-num-groups", m.routing_groups);
    a.Value("--moe-router-group-topk", m.routing_group_topk);
  }
  // The router as the model defines it (model_spec.h): DeepSeek-V3's sigmoid scores,
  // auxiliary-loss-free expert bias and gate scaling (Megatron-LM's DeepSeek-V3 recipe sets
  // the same three).
  if (m.router_sigmoid) a.Value("--moe-router-score-function", "sigmoid");
  if (m.router_expert_bias) a.Switch("--moe-router-enable-expert-bias");
  if (m.router_topk_scaling > 0) a.Value("--moe-router-topk-scaling-factor", m.router_topk_scaling);
  if (m.shared_experts > 0) {
    a.Value("--moe-shared-expert-intermediate-size", m.shared_experts * m.shared_ffn_hidden);
    if (m.shared_expert_gate) a.Switch("--moe-shared-expert-gate");
  }
  EmitMoeLayerFreq(m, a);
  // The stack's MoE features (layout/stack.h; docs/stacks.md).
  const StackFeatures& st = l.stack;
  if (st.grouped_gemm) a.Switch("--moe-grouped-gemm");
  if (st.moe_dispatcher == MoeDispatcher::kAllToAll) {
    a.Value("--moe-token-dispatcher-type", "alltoall");
  } else {
    a.Value("--moe-token-dispatcher-type", "flex");
    a.Value("--moe-flex-dispatcher-backend", st.moe_dispatcher == MoeDispatcher::kHybridEp ? "hybridep" : "deepep");
  }
  if (st.fused_permute) a.Switch("--moe-permute-fusion");
  if (st.fused_router) a.Switch("--moe-router-fusion");
}

// Stack features outside MoE: fused cross-entropy, CUDA graphs, kernels; multi-token prediction.
void EmitStack(const ModelSpec& m, const Layout& l, Args& a, std::vector<std::string>& notes) {
  if (l.fused_cross_entropy) a.Switch("--cross-entropy-loss-fusion");
  // CUDA graphs as Megatron-Bridge's recipes set them (v0.2.0 scripts/performance/configs:
  // transformer_engine graphs of the static scopes; local full_iteration for the whole step).
  if (l.stack.cuda_graphs == CudaGraphs::kStatic) {
    a.Value("--cuda-graph-impl", "transformer_engine");
    a.Words("--cuda-graph-scope", m.is_moe() ? "attn moe_router moe_preprocess" : "attn mlp");
  } else if (l.stack.cuda_graphs == CudaGraphs::kFull) {
    a.Value("--cuda-graph-impl", "local");
    a.Words("--cuda-graph-scope", "full_iteration");
  }
  if (l.stack.kernels != Kernels::kFused)
    notes.push_back(std::string("the layout was estimated with ") + kKernelsNames.Name(l.stack.kernels) +
                    " element-wise kernels; Megatron-LM runs Transformer Engine's fused ones");
  if (m.mtp_layers > 0) {
    // TransformerConfig.mtp_num_layers (a flag generated from the dataclass).
    a.Value("--mtp-num-layers", m.mtp_layers);
    notes.push_back(
        fmt::format("--mtp-num-layers {}: Megatron trains the multi-token-prediction module(s) "
                    "of the config; paratune's estimate leaves them out (ModelSpec.mtp_layers is "
                    "noted, not counted)",
                    m.mtp_layers));
  }
}

// Recomputation: --recompute-granularity and, for selective, the modules.
void EmitRecompute(const Layout& l, Args& a) {
  if (l.recompute == Recompute::kSelective) {
    a.Value("--recompute-granularity", "selective");
    if (l.recompute_modules != 0) {
      std::string words = RecomputeModulesText(l.recompute_modules);
      std::replace(words.begin(), words.end(), ',', ' ');
      a.Words("--recompute-modules", words);
    }
  } else if (l.recompute == Recompute::kFull) {
    a.Value("--recompute-granularity", "full");
    a.Value("--recompute-method", "uniform");
    a.Value("--recompute-num-layers", 1);
  }
}

// The training shape and the layout (megatron/core/model_parallel_config.py).
void EmitLayout(const ModelSpec& m, const Layout& l, const Training& t, Args& a, std::vector<std::string>& notes) {
  // Training shape.
  a.Value("--seq-length", t.seq);
  a.Value("--micro-batch-size", l.mbs);
  a.Value("--global-batch-size", t.global_batch);
  // Layout.
  a.Value("--tensor-model-parallel-size", l.tp);
  a.Value("--pipeline-model-parallel-size", l.pp);
  EmitPipeline(m, l, a, notes);
  a.Value("--context-parallel-size", l.cp);
  if (l.cp > 1 && l.cp_comm == CpComm::kA2a) a.Value("--cp-comm-type", "a2a");
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
  EmitRecompute(l, a);
}

// Precision, the overlap switches, the attention backend and the optimizer states.
void EmitPrecision(const Layout& l, const Training& t, Args& a, std::vector<std::string>& notes) {
  // Precision: BF16 (or FP16, with Megatron's dynamic loss scaling) parameters and activations;
  // FP8/FP4 GEMMs through Transformer Engine on BF16.
  a.Switch(t.precision == Precision::kFp16 ? "--fp16" : "--bf16");
  // One recipe per precision on every GPU (emit.h): Megatron's own default recipe is
  // "delayed" (TransformerConfig.fp8_recipe), so it is always given.
  if (t.precision == Precision::kFp8) {
    a.Value("--fp8-format", kMegatronFp8Format);
    a.Value("--fp8-recipe", kMegatronFp8Recipe);
  } else if (t.precision == Precision::kFp4) {
    a.Value("--fp4-format", kMegatronFp4Format);
    a.Value("--fp4-recipe", kMegatronFp4Recipe);
  }
  // Overlap switches (all off by default in Megatron-LM).
  if (!l.grad_reduce_in_fp32) a.Switch("--grad-reduce-in-bf16");
  if (l.overlap_grad_reduce) a.Switch("--overlap-grad-reduce");
  if (l.overlap_param_gather && l.zero >= 1) a.Switch("--overlap-param-gather");
  if (l.overlap_tp_comm && l.tp > 1) a.Switch("--tp-comm-overlap");
  if (!l.overlap_pp_comm) a.Switch("--no-overlap-p2p-communication");
  if (l.overlap_ep_comm && l.ep > 1) {
    a.Switch("--overlap-moe-expert-parallel-comm");
    a.Switch("--delay-wgrad-compute");  // required with it (Megatron-LM docs, MoE pre-training setup)
  }
  if (!l.flash_attention) a.Value("--attention-backend", "unfused");
  // Adam's states (Layout::optimizer_states): Megatron-Core's precision-aware optimizer keeps the
  // FP32 master as 16-bit remainders by default (store_param_remainders). Megatron has no
  // optimizer without a master copy: BF16 moments there still keep the remainders, 2 bytes more.
  if (l.optimizer_states != OptimizerStates::kFp32 && l.zero >= 1) {
    a.Switch("--use-precision-aware-optimizer");
    if (l.optimizer_states == OptimizerStates::kBf16) {
      a.Value("--exp-avg-dtype", "bf16");
      a.Value("--exp-avg-sq-dtype", "bf16");
      notes.push_back(
          "bf16 optimizer states: Megatron keeps the master weights as 16-bit remainders "
          "besides, 6 bytes per parameter where paratune estimated 4 (NeMo 1's distributed_fused_adam)");
    }
  }
}

// Settings with no Megatron-LM flag (TransformerConfig fields, environment): notes only.
void NoteConfigOnlySettings(const Layout& l, std::vector<std::string>& notes) {
  if (l.recompute == Recompute::kSelective && l.recompute_modules == 0)
    notes.push_back(
        "selective recomputation: Megatron's default --recompute-modules (core_attn) is "
        "what paratune models");
  if (l.fp8_attention)
    notes.push_back(
        "FP8 attention is a TransformerConfig field (fp8_dot_product_attention=True; Megatron-Bridge "
        "mixed_precision.fp8_dot_product_attention), not a Megatron-LM flag: set it in the config");
  if (l.stack.fused_grouped_mlp)
    notes.push_back(
        "fused grouped MLP: set use_transformer_engine_op_fuser=True in the TransformerConfig and "
        "NVTE_CUTEDSL_FUSED_GROUPED_MLP=1 in the environment (Blackwell, MXFP8/NVFP4)");
  if (l.fp8_activation_cache)
    notes.push_back(
        "FP8 caching of the experts' SwiGLU inputs (DeepSeek-V3 Sec. 3.3.2) has no Megatron-LM "
        "flag: the estimate assumed it");
  // Activation offloading (Layout::offload_layers) is a TransformerConfig field; the settings
  // are named as Megatron-Core's config and NeMo 2 / Megatron-Bridge recipes set them.
  if (l.offload_layers > 0)
    notes.push_back(
        fmt::format("activation offload of {} layers: set the TransformerConfig fields cpu_offloading=True, "
                    "cpu_offloading_num_layers={}, cpu_offloading_weights=False (as NeMo 2 and "
                    "Megatron-Bridge recipes do); no command-line flag is emitted for it",
                    l.offload_layers, l.offload_layers));
}

}  // namespace

Emitted EmitMegatron(const EmitInput& in) {
  const ModelSpec& m = in.model;
  const Layout& l = in.layout;
  const Training& t = in.training;
  Emitted out;
  Args a;
  EmitModel(m, t, a, out.notes);
  if (m.is_moe()) EmitMoe(m, l, a);
  EmitStack(m, l, a, out.notes);
  EmitLayout(m, l, t, a, out.notes);
  EmitPrecision(l, t, a, out.notes);
  NoteConfigOnlySettings(l, out.notes);
  out.text = a.Text();
  return out;
}

}  // namespace paratune
