// torchtitan TOML job file. Section and key names from torchtitan/config/job_config.py at
// v0.2.2 (the last release read from TOML; docs/frameworks.md), batch semantics from
// torchtitan/train.py (gradient accumulation = global / (local * dp)) and the parallel mesh
// from torchtitan/distributed/parallel_dims.py.
#include <fmt/format.h>

#include <optional>

#include "emit/emit.h"
#include "layout/pipeline_split.h"

namespace paratune {
namespace {

// torchtitan v0.2.2's model registry (torchtitan/models/{llama3,qwen3,deepseek_v3}/__init__.py
// and their model/args.py and model/model.py), transcribed as the ModelSpec each flavor builds.
struct Flavor {
  std::string name, flavor;
  ModelSpec model;
};

ModelSpec TitanBase(const std::string& name, const std::string& flavor) {
  ModelSpec m;
  m.name = name + "/" + flavor;
  m.architecture = "torchtitan:" + name;
  m.mlp = MlpKind::kGated;  // SwiGLU FeedForward (w1, w2, w3), no biases
  m.norm = NormKind::kRmsNorm;
  m.positions = PositionKind::kRotary;
  // max_seq_len is set from training.seq_len (update_from_config): the flavor has no context.
  m.max_position_embeddings = 0;
  return m;
}

// llama3: TransformerModelArgs; head_dim = dim / n_heads; FeedForward(hidden_dim = 4 * dim):
// int(2 * hidden / 3), times ffn_dim_multiplier, rounded up to multiple_of; vocab_size 128256;
// precompute_freqs_cis always applies RoPEScalingArgs (8, 1, 4, 8192), the llama3 scaling.
ModelSpec TitanLlama3(const std::string& flavor, int64_t dim, int64_t layers, int64_t heads, int64_t kv,
                      double ffn_multiplier, int64_t multiple_of) {
  ModelSpec m = TitanBase("llama3", flavor);
  m.layers = layers;
  m.hidden = dim;
  m.heads = heads;
  m.kv_heads = kv;
  m.head_dim = dim / heads;
  m.vocab = 128256;
  const auto hidden = static_cast<int64_t>(ffn_multiplier * static_cast<double>(2 * (4 * dim) / 3));
  m.ffn_hidden = multiple_of * ((hidden + multiple_of - 1) / multiple_of);
  m.rope_theta = 500000;
  m.rope_scaling.kind = RopeScalingKind::kLlama3;
  m.rope_scaling.factor = 8;
  m.rope_scaling.low_freq_factor = 1;
  m.rope_scaling.high_freq_factor = 4;
  m.rope_scaling.original_max_positions = 8192;
  return m;
}

// qwen3: Qwen3ModelArgs (head_dim given, qk_norm, no RoPE scaling in precompute_rope_cache);
// MoE flavors put an MoE block on every layer (moe_enabled), no shared experts.
ModelSpec TitanQwen3(const std::string& flavor, int64_t dim, int64_t layers, int64_t heads, int64_t kv,
                     int64_t hidden_dim, double theta, bool tied, int64_t experts = 0, int64_t moe_dim = 0) {
  ModelSpec m = TitanBase("qwen3", flavor);
  m.layers = layers;
  m.hidden = dim;
  m.heads = heads;
  m.kv_heads = kv;
  m.head_dim = 128;
  m.vocab = 151936;
  m.ffn_hidden = hidden_dim;
  m.qk_norm = true;
  m.tied_embeddings = tied;
  m.rope_theta = theta;
  if (experts > 0) {
    m.experts = experts;
    m.topk = 8;
    m.moe_ffn_hidden = moe_dim;
  }
  return m;
}

// deepseek_v3 "671B": DeepSeekV3ModelArgs with MLA and YaRN (rope_factor 40, original_seq_len
// 4096, beta_fast 32, beta_slow 1, mscale 1.0, which scales the softmax by
// (0.1 * mscale * ln(factor) + 1)^2 as transformers' mscale_all_dim does); the shared experts
// are one FeedForward of moe_inter_dim * num_shared_experts; no multi-token prediction.
ModelSpec TitanDeepseekV3_671B() {
  ModelSpec m = TitanBase("deepseek_v3", "671B");
  m.layers = 61;
  m.hidden = 7168;
  m.heads = 128;
  m.kv_heads = 128;
  m.attention = AttentionKind::kMla;
  m.q_lora_rank = 1536;
  m.kv_lora_rank = 512;
  m.qk_nope_head_dim = 128;
  m.qk_rope_head_dim = 64;
  m.v_head_dim = 128;
  m.head_dim = 192;
  m.vocab = 129280;
  m.ffn_hidden = 18432;
  m.experts = 256;
  m.topk = 8;
  m.routing_groups = 8;      // n_expert_groups
  m.routing_group_topk = 4;  // n_limited_groups
  m.moe_ffn_hidden = 2048;
  m.shared_experts = 1;
  m.shared_ffn_hidden = 2048;
  m.first_dense_layers = 3;
  m.rope_theta = 10000;
  m.rope_scaling = {RopeScalingKind::kYarn, 40, 4096, 0, 0, 32, 1, 1.0, 1.0, 0};
  return m;
}

const std::vector<Flavor>& Registry() {
  static const std::vector<Flavor> r = [] {
    std::vector<Flavor> v;
    auto add = [&](const ModelSpec& m) {
      const size_t slash = m.name.find('/');
      v.push_back({m.name.substr(0, slash), m.name.substr(slash + 1), m});
    };
    add(TitanLlama3("8B", 4096, 32, 32, 8, 1.3, 1024));
    add(TitanLlama3("70B", 8192, 80, 64, 8, 1.3, 4096));
    add(TitanLlama3("405B", 16384, 126, 128, 8, 1.2, 4096));
    add(TitanQwen3("0.6B", 1024, 28, 16, 8, 3072, 1e6, true));
    add(TitanQwen3("1.7B", 2048, 28, 16, 8, 6144, 1e6, true));
    add(TitanQwen3("4B", 2560, 36, 32, 8, 9728, 1e6, true));
    add(TitanQwen3("8B", 4096, 36, 32, 8, 12288, 1e6, false));
    add(TitanQwen3("14B", 5120, 40, 40, 8, 17408, 1e6, false));
    add(TitanQwen3("32B", 5120, 64, 64, 8, 25600, 1e6, false));
    add(TitanQwen3("30B-A3B", 2048, 48, 32, 4, 6144, 1e6, false, 128, 768));
    add(TitanQwen3("235B-A22B", 4096, 94, 64, 4, 12288, 5e6, false, 128, 1536));
    add(TitanDeepseekV3_671B());
    return v;
  }();
  return r;
}

// Fields a flavor never carries (the names, and the context, which is training.seq_len), and
// fields where a flavor may differ from the config and still be the model's shape (noted).
bool NotCarried(const std::string& diff) {
  for (const char* f : {"name:", "architecture:", "max_position_embeddings:"})
    if (diff.starts_with(f)) return true;
  return false;
}
bool NotedDifference(const std::string& diff) {
  for (const char* f : {"rope_theta:", "rotary_percent:", "rope_scaling.", "mtp_layers:", "dropout:"})
    if (diff.starts_with(f)) return true;
  return false;
}

std::string Str(const std::string& s) { return "\"" + s + "\""; }

// A torchtitan job file being written: TOML sections and lines, and the same settings as
// command-line overrides (`--section.key value`, releases after v0.2.2).
struct JobFile {
  std::string toml;
  std::string current;    // the section being written
  std::string overrides;  // the same settings as command-line overrides
  void Line(const std::string& k, const std::string& v) {
    toml += k + " = " + v + "\n";
    if (current == "job") return;  // the description: a TOML file's, not a run's
    std::string arg;               // TOML value as a command-line value: strings unquoted, lists comma-joined
    for (const char c : v)
      if (c != '"' && c != '[' && c != ']' && c != ' ') arg += c;
    overrides += " --" + current + "." + k + " " + (arg.empty() ? "''" : arg);
  }
  void Section(const std::string& name) {
    toml += (toml.empty() ? "" : "\n") + std::string("[") + name + "]\n";
    current = name;
  }
};

// The registered flavor whose model has this config's shape (rotary settings and MTP may
// differ), the fewest differences first; nullptr when none has it.
const Flavor* MatchingFlavor(const ModelSpec& m, std::vector<std::string>& differences) {
  const Flavor* match = nullptr;
  for (const Flavor& f : Registry()) {
    std::vector<std::string> d;
    bool shape = true;
    for (const std::string& x : ModelDifferences(f.model, m)) {
      if (NotCarried(x)) continue;
      if (!NotedDifference(x)) shape = false;
      d.push_back(x);
    }
    if (shape && (match == nullptr || d.size() < differences.size())) {
      match = &f;
      differences = d;
    }
  }
  return match;
}

// [model]: the flavor and its name, with what differs from the config, or the flavor to register.
void EmitModelSection(const ModelSpec& m, const Training& t, JobFile& f, std::vector<std::string>& notes) {
  f.Section("model");
  std::vector<std::string> differences;
  const Flavor* match = MatchingFlavor(m, differences);
  std::string name, flavor;
  if (match != nullptr) {
    name = match->name;
    flavor = match->flavor;
    if (!differences.empty()) {
      std::string list;
      for (const std::string& d : differences) list += (list.empty() ? "" : "; ") + d;
      notes.push_back(
          fmt::format("torchtitan's {} \"{}\" has this model's shape but differs from the config "
                      "(flavor vs config): {}; register a flavor with the config's values to train "
                      "exactly the config's model",
                      name, flavor, list));
    }
    const RopeScaling& r = match->model.rope_scaling;
    if (name == "deepseek_v3" && r.kind == RopeScalingKind::kYarn && t.seq <= r.original_max_positions)
      notes.push_back(
          fmt::format("torchtitan's deepseek_v3 applies YaRN only when training.seq_len exceeds "
                      "original_seq_len {} (model.py precompute_freqs_cis); at {} it trains "
                      "without it, transformers with it",
                      r.original_max_positions, t.seq));
  } else {
    name = m.is_moe() ? "deepseek_v3" : "llama3";
    flavor = m.name;
    std::string dims = fmt::format("{} layers, hidden {}, {} heads, {} KV heads, head dim {}, FFN {}, vocabulary {}",
                                   m.layers, m.hidden, m.heads, m.kv_heads, m.qk_head_dim(), m.ffn_hidden, m.vocab);
    if (m.is_moe())
      dims += fmt::format(", {} experts (top {}, width {}, {} shared, {} leading dense layers)", m.experts, m.topk,
                          m.moe_ffn_hidden, m.shared_experts, m.first_dense_layers);
    if (m.positions == PositionKind::kRotary)
      dims += fmt::format(", rope_theta {}, RoPE scaling {}", m.rope_theta, RopeScalingName(m.rope_scaling.kind));
    else
      dims += fmt::format(", {} positions", PositionKindName(m.positions));
    notes.push_back(
        fmt::format("torchtitan has no flavor for '{}': register one under model.name = \"{}\" "
                    "with {}",
                    m.name, name, dims));
  }
  f.Line("name", Str(name));
  f.Line("flavor", Str(flavor));
  // One FP8 recipe on every GPU (emit.h): float8 with per-tensor scaling.
  if (t.precision == Precision::kFp8) f.Line("converters", fmt::format("[\"{}\"]", kTorchtitanFp8Converter));
  if (t.precision == Precision::kFp4)
    notes.push_back("torchtitan v0.2.2 has no FP4 training recipe: emitted BF16 (no converter)");
}

// The pipeline settings of [parallelism] (pp > 1).
void EmitPipelineLines(const ModelSpec& m, const Layout& l, JobFile& f, std::vector<std::string>& notes) {
  f.Line("pipeline_parallel_schedule", Str(l.vp > 1 ? "Interleaved1F1B" : "1F1B"));
  const SplitDescription split = DescribeSplit(m.layers, l.pp, l.vp, l.pp_layout);
  if (split.kind == SplitKind::kEven) {
    f.Line("pipeline_parallel_layers_per_stage", std::to_string(m.layers / (static_cast<int64_t>(l.pp) * l.vp)));
  } else {
    std::string counts;
    for (size_t k = 0; k < l.pp_layout.size(); ++k) counts += (k ? ", " : "") + std::to_string(l.pp_layout[k]);
    notes.push_back(
        fmt::format("the uneven pipeline split ({} layers per stage: {}) has no torchtitan option "
                    "at v0.2.2 (pipeline_parallel_layers_per_stage is one count): give "
                    "parallelism.module_fqns_per_model_part to reproduce it",
                    SplitKindName(split.kind), counts));
  }
  if (l.pipeline_schedule() == ScheduleKind::kZbH1 || l.pipeline_schedule() == ScheduleKind::kGpipe)
    notes.push_back(fmt::format("schedule {}: emitted 1F1B{}", ScheduleName(l.pipeline_schedule()),
                                l.pipeline_schedule() == ScheduleKind::kGpipe
                                    ? " (torchtitan's GPipe is pipeline_parallel_schedule = \"GPipe\")"
                                    : " (torchtitan's zero-bubble schedules, InterleavedZeroBubble and "
                                      "ZBVZeroBubble, need several stages per rank; ZB-H1 has one)"));
  f.Line("pipeline_parallel_microbatch_size", std::to_string(l.mbs));
}

// [parallelism]: data (replicate or FSDP), tensor, pipeline, context and expert parallelism.
void EmitParallelismSection(const ModelSpec& m, const Layout& l, JobFile& f, std::vector<std::string>& notes) {
  f.Section("parallelism");
  // ZeRO-0 is DDP (replicate); FSDP shards parameters, gradients and optimizer states together.
  // There is no ZeRO-1/ZeRO-2 of their own: fsdp_reshard_after_forward = "never" keeps the
  // gathered parameters between forward and backward (ZeRO-2 communication pattern).
  f.Line("data_parallel_replicate_degree", std::to_string(l.zero == 0 ? l.dp : 1));
  f.Line("data_parallel_shard_degree", std::to_string(l.zero == 0 ? 1 : l.dp));
  if (l.zero >= 1) f.Line("fsdp_reshard_after_forward", Str(l.zero == 3 ? "always" : "never"));
  if (l.zero == 1)
    notes.push_back(
        "torchtitan has no ZeRO-1 distinct from FSDP: emitted FSDP with "
        "fsdp_reshard_after_forward = \"never\" (parameters, gradients and optimizer "
        "states sharded; parameters kept gathered from forward to backward)");
  f.Line("tensor_parallel_degree", std::to_string(l.tp));
  if (l.overlap_tp_comm && l.tp > 1) f.Line("enable_async_tensor_parallel", "true");
  f.Line("pipeline_parallel_degree", std::to_string(l.pp));
  if (l.pp > 1) EmitPipelineLines(m, l, f, notes);
  f.Line("context_parallel_degree", std::to_string(l.cp));
  if (m.is_moe()) {
    f.Line("expert_parallel_degree", std::to_string(l.ep));
    f.Line("expert_tensor_parallel_degree", std::to_string(l.expert_tp()));
    if (l.ep > 1 && l.expert_tp() != 1 && l.expert_tp() != l.tp)
      notes.push_back(
          fmt::format("torchtitan supports only etp = 1 or etp = tp (parallel_dims.py); "
                      "etp {} with tp {} will be rejected",
                      l.expert_tp(), l.tp));
  }
  if (!l.sequence_parallel() && l.tp > 1) notes.push_back("torchtitan v0.2.2 always uses sequence parallelism with TP");
}

}  // namespace

std::optional<ModelSpec> TorchtitanFlavorModel(const std::string& name, const std::string& flavor) {
  for (const Flavor& f : Registry())
    if (f.name == name && f.flavor == flavor) return f.model;
  return std::nullopt;
}

Emitted EmitTorchtitan(const EmitInput& in) {
  const ModelSpec& m = in.model;
  const Layout& l = in.layout;
  const Training& t = in.training;
  Emitted out;
  std::vector<std::string>& notes = out.notes;
  JobFile f;
  f.Section("job");
  f.Line("description", Str(fmt::format("paratune plan: {} on {} x {}", m.name, in.cluster.gpus, in.cluster.gpu.name)));
  EmitModelSection(m, t, f, notes);

  // Without PP a rank runs local_batch_size sequences per micro-step and accumulates
  // global / (local * dp) of them; with PP the local batch is cut into micro-batches of
  // pipeline_parallel_microbatch_size inside one step.
  const int64_t per_dp = t.global_batch / l.dp;
  f.Section("training");
  f.Line("local_batch_size", std::to_string(l.pp > 1 ? per_dp : l.mbs));
  f.Line("global_batch_size", std::to_string(t.global_batch));
  f.Line("seq_len", std::to_string(t.seq));
  f.Line("mixed_precision_param", Str(t.precision == Precision::kFp16 ? "float16" : "bfloat16"));

  EmitParallelismSection(m, l, f, notes);

  f.Section("activation_checkpoint");
  f.Line("mode", Str(RecomputeName(l.recompute)));
  if (l.recompute == Recompute::kSelective) {
    f.Line("selective_ac_option", Str("op"));
    notes.push_back(
        "selective recomputation maps to torchtitan's per-op SAC (selective_ac_option = "
        "\"op\"), which saves matmul outputs and recomputes the rest, close to "
        "paratune's attention-core recomputation");
  }

  if (t.precision == Precision::kFp8) {
    f.Section(kTorchtitanFp8Converter);
    f.Line("recipe_name", Str(kTorchtitanFp8Recipe));
  }
  // torch.compile: asked for by the stack (torchtitan+compile: Kernels::kCompiled) or needed by
  // async TP (enable_async_tensor_parallel works only compiled).
  if ((l.overlap_tp_comm && l.tp > 1) || l.stack.kernels == Kernels::kCompiled) {
    f.Section("compile");
    f.Line("enable", "true");
    f.Line("components", "[\"model\", \"loss\"]");
  }
  // Which release the file is for, said in the file (issue 32): v0.2.2 is the last torchtitan
  // that reads TOML job files; later releases take the same settings as overrides of a
  // registered config (docs/frameworks.md, "torchtitan").
  out.text =
      "# torchtitan job file for v0.2.2 (pytorch/torchtitan 73a0e69, 2026-02-20), the last release that reads\n"
      "# --job.config_file TOML. Releases after the 2026-02-23 config refactor take the same settings as\n"
      "# command-line overrides of a registered config:\n#  " +
      f.overrides + "\n\n" + f.toml;
  return out;
}

}  // namespace paratune
