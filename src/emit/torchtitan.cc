// torchtitan TOML job file. Section and key names from torchtitan/config/job_config.py at
// v0.2.2 (the last release read from TOML; docs/frameworks.md), batch semantics from
// torchtitan/train.py (gradient accumulation = global / (local * dp)) and the parallel mesh
// from torchtitan/distributed/parallel_dims.py.
#include <fmt/format.h>

#include <map>

#include "emit/emit.h"

namespace paratune {
namespace {

// torchtitan's model registry names and flavors for catalog models
// (torchtitan/models/{llama3,deepseek_v3,qwen3}/__init__.py).
std::pair<std::string, std::string> Flavor(const std::string& id) {
  static const std::map<std::string, std::pair<std::string, std::string>> known = {
      {"llama-3-8b", {"llama3", "8B"}},         {"llama-3.1-8b", {"llama3", "8B"}},
      {"llama-3-70b", {"llama3", "70B"}},       {"llama-3.1-70b", {"llama3", "70B"}},
      {"llama-3.1-405b", {"llama3", "405B"}},   {"deepseek-v3", {"deepseek_v3", "671B"}},
      {"qwen3-8b", {"qwen3", "8B"}},            {"qwen3-32b", {"qwen3", "32B"}},
      {"qwen3-30b-a3b", {"qwen3", "30B-A3B"}},  {"qwen3-235b-a22b", {"qwen3", "235B-A22B"}}};
  auto it = known.find(id);
  return it == known.end() ? std::pair<std::string, std::string>{"", ""} : it->second;
}

std::string Str(const std::string& s) { return "\"" + s + "\""; }

}  // namespace

Emitted EmitTorchtitan(const EmitInput& in) {
  const ModelSpec& m = in.model;
  const Layout& l = in.layout;
  const Training& t = in.training;
  Emitted out;
  std::string s;
  auto line = [&](const std::string& k, const std::string& v) { s += k + " = " + v + "\n"; };
  auto section = [&](const std::string& name) { s += (s.empty() ? "" : "\n") + std::string("[") + name + "]\n"; };

  section("job");
  line("description", Str(fmt::format("paratune plan: {} on {} x {}", m.name, in.cluster.gpus, in.cluster.gpu.name)));

  section("model");
  auto [name, flavor] = Flavor(m.name);
  if (name.empty()) {
    name = m.is_moe() ? "deepseek_v3" : "llama3";
    flavor = m.name;
    out.notes.push_back(fmt::format("torchtitan has no flavor for '{}': register one under model.name = \"{}\" "
                                    "with {} layers, hidden {}, {} heads, {} KV heads, vocabulary {}",
                                    m.name, name, m.layers, m.hidden, m.heads, m.kv_heads, m.vocab));
  }
  line("name", Str(name));
  line("flavor", Str(flavor));
  const bool blackwell = in.cluster.gpu.generation == "blackwell";
  if (t.precision == Precision::kFp8) line("converters", blackwell ? "[\"quantize.linear.mx\"]" : "[\"quantize.linear.float8\"]");
  if (t.precision == Precision::kFp4)
    out.notes.push_back("torchtitan v0.2.2 has no FP4 training recipe: emitted BF16 (no converter)");

  // Without PP a rank runs local_batch_size sequences per micro-step and accumulates
  // global / (local * dp) of them; with PP the local batch is cut into micro-batches of
  // pipeline_parallel_microbatch_size inside one step.
  const int64_t per_dp = t.global_batch / l.dp;
  section("training");
  line("local_batch_size", std::to_string(l.pp > 1 ? per_dp : l.mbs));
  line("global_batch_size", std::to_string(t.global_batch));
  line("seq_len", std::to_string(t.seq));
  line("mixed_precision_param", Str("bfloat16"));

  section("parallelism");
  // ZeRO-0 is DDP (replicate); FSDP shards parameters, gradients and optimizer states together.
  // There is no ZeRO-1/ZeRO-2 of their own: fsdp_reshard_after_forward = "never" keeps the
  // gathered parameters between forward and backward (ZeRO-2 communication pattern).
  line("data_parallel_replicate_degree", std::to_string(l.zero == 0 ? l.dp : 1));
  line("data_parallel_shard_degree", std::to_string(l.zero == 0 ? 1 : l.dp));
  if (l.zero >= 1) line("fsdp_reshard_after_forward", Str(l.zero == 3 ? "always" : "never"));
  if (l.zero == 1)
    out.notes.push_back("torchtitan has no ZeRO-1 distinct from FSDP: emitted FSDP with "
                        "fsdp_reshard_after_forward = \"never\" (parameters, gradients and optimizer "
                        "states sharded; parameters kept gathered from forward to backward)");
  line("tensor_parallel_degree", std::to_string(l.tp));
  if (l.overlap_tp_comm && l.tp > 1) line("enable_async_tensor_parallel", "true");
  line("pipeline_parallel_degree", std::to_string(l.pp));
  if (l.pp > 1) {
    line("pipeline_parallel_schedule", Str(l.vp > 1 ? "Interleaved1F1B" : "1F1B"));
    line("pipeline_parallel_layers_per_stage", std::to_string(m.layers / (static_cast<int64_t>(l.pp) * l.vp)));
    line("pipeline_parallel_microbatch_size", std::to_string(l.mbs));
  }
  line("context_parallel_degree", std::to_string(l.cp));
  if (m.is_moe()) {
    line("expert_parallel_degree", std::to_string(l.ep));
    line("expert_tensor_parallel_degree", std::to_string(l.expert_tp()));
    if (l.ep > 1 && l.expert_tp() != 1 && l.expert_tp() != l.tp)
      out.notes.push_back(fmt::format("torchtitan supports only etp = 1 or etp = tp (parallel_dims.py); "
                                      "etp {} with tp {} will be rejected", l.expert_tp(), l.tp));
  }
  if (!l.sequence_parallel() && l.tp > 1)
    out.notes.push_back("torchtitan v0.2.2 always uses sequence parallelism with TP");

  section("activation_checkpoint");
  line("mode", Str(RecomputeName(l.recompute)));
  if (l.recompute == Recompute::kSelective) {
    line("selective_ac_option", Str("op"));
    out.notes.push_back("selective recomputation maps to torchtitan's per-op SAC (selective_ac_option = "
                        "\"op\"), which saves matmul outputs and recomputes the rest, close to "
                        "paratune's attention-core recomputation");
  }

  if (t.precision == Precision::kFp8) {
    if (blackwell) {
      section("quantize.linear.mx");
      line("recipe_name", Str("mxfp8_cublas"));
    } else {
      section("quantize.linear.float8");
      line("recipe_name", Str("rowwise"));
    }
  }
  if (l.overlap_tp_comm && l.tp > 1) {
    section("compile");
    line("enable", "true");
    line("components", "[\"model\", \"loss\"]");
  }
  out.text = s;
  return out;
}

}  // namespace paratune
