// Megatron-LM arguments: every emitted flag is a real Megatron-LM flag (list below, checked
// against megatron/training/arguments.py and its config dataclasses at NVIDIA/Megatron-LM
// d98e8a64ddf3, 2026-08-22) and its value parses as that flag's type; and emitting then reading
// back with --from-megatron gives the same layout and model.
#include <gtest/gtest.h>

#include <charconv>
#include <map>

#include "emit/emit.h"
#include "emit/emit_test_util.h"
#include "layout/megatron_args.h"

namespace paratune {
namespace {

// Flag -> type: "int", "float", "switch" (store_true), "pattern" (--moe-layer-freq: an int or a
// Python list expression), or "choice:a|b|c".
const std::map<std::string, std::string>& VerifiedFlags() {
  static const std::map<std::string, std::string> f = {
      {"--num-layers", "int"},
      {"--hidden-size", "int"},
      {"--ffn-hidden-size", "int"},
      {"--num-attention-heads", "int"},
      {"--kv-channels", "int"},
      {"--group-query-attention", "switch"},
      {"--num-query-groups", "int"},
      {"--multi-latent-attention", "switch"},
      {"--q-lora-rank", "int"},
      {"--kv-lora-rank", "int"},
      {"--qk-head-dim", "int"},
      {"--qk-pos-emb-head-dim", "int"},
      {"--v-head-dim", "int"},
      {"--swiglu", "switch"},
      {"--normalization", "choice:LayerNorm|RMSNorm"},
      {"--untie-embeddings-and-output-weights", "switch"},
      {"--disable-bias-linear", "switch"},
      {"--add-qkv-bias", "switch"},
      {"--qk-layernorm", "switch"},
      {"--attention-dropout", "float"},
      {"--hidden-dropout", "float"},
      {"--position-embedding-type", "choice:learned_absolute|rope|yarn|mrope|relative|none"},
      {"--max-position-embeddings", "int"},
      {"--vocab-size", "int"},
      {"--padded-vocab-size", "int"},
      {"--num-experts", "int"},
      {"--moe-router-topk", "int"},
      {"--moe-ffn-hidden-size", "int"},
      {"--moe-shared-expert-intermediate-size", "int"},
      {"--moe-shared-expert-gate", "switch"},
      {"--moe-layer-freq", "pattern"},
      {"--moe-grouped-gemm", "switch"},
      {"--moe-token-dispatcher-type", "choice:allgather|alltoall|flex"},
      {"--seq-length", "int"},
      {"--micro-batch-size", "int"},
      {"--global-batch-size", "int"},
      {"--tensor-model-parallel-size", "int"},
      {"--pipeline-model-parallel-size", "int"},
      {"--num-layers-per-virtual-pipeline-stage", "int"},
      {"--num-virtual-stages-per-pipeline-rank", "int"},
      {"--context-parallel-size", "int"},
      {"--expert-model-parallel-size", "int"},
      {"--expert-tensor-parallel-size", "int"},
      {"--sequence-parallel", "switch"},
      {"--use-distributed-optimizer", "switch"},
      {"--use-megatron-fsdp", "switch"},
      {"--data-parallel-sharding-strategy", "choice:no_shard|optim|optim_grads|optim_grads_params"},
      {"--ckpt-format", "choice:torch|torch_dist|torch_dcp|fsdp_dtensor"},
      {"--recompute-granularity", "choice:full|selective"},
      {"--recompute-method", "choice:uniform|block"},
      {"--recompute-num-layers", "int"},
      {"--recompute-activations", "switch"},
      {"--bf16", "switch"},
      {"--fp16", "switch"},
      {"--fp8-format", "choice:e4m3|hybrid"},
      {"--fp8-recipe", "choice:tensorwise|delayed|mxfp8|blockwise|custom"},
      {"--fp4-format", "choice:e2m1"},
      {"--fp4-recipe", "choice:nvfp4|custom"},
      {"--overlap-grad-reduce", "switch"},
      {"--overlap-param-gather", "switch"},
      {"--tp-comm-overlap", "switch"},
      {"--no-overlap-p2p-communication", "switch"},
      {"--attention-backend", "choice:flash|fused|unfused|local|auto"},
  };
  return f;
}

bool IsInt(const std::string& v) {
  long long x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  return !v.empty() && ec == std::errc() && p == v.data() + v.size();
}

bool IsFloat(const std::string& v) {
  double x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  return !v.empty() && ec == std::errc() && p == v.data() + v.size();
}

// Parses the emitted text as argparse would (flags, then values), checking every flag and value.
void ExpectValidMegatron(const std::string& text) {
  const std::vector<std::string> w = SplitShellWords(text);
  ASSERT_FALSE(w.empty());
  for (size_t i = 0; i < w.size(); ++i) {
    ASSERT_EQ(w[i].rfind("--", 0), 0u) << "expected a flag, got '" << w[i] << "'";
    const auto it = VerifiedFlags().find(w[i]);
    ASSERT_NE(it, VerifiedFlags().end()) << "not a verified Megatron-LM flag: " << w[i];
    const std::string& type = it->second;
    if (type == "switch") continue;
    ASSERT_LT(i + 1, w.size()) << w[i] << " has no value";
    const std::string& v = w[++i];
    if (type == "int") {
      EXPECT_TRUE(IsInt(v)) << w[i - 1] << " " << v;
    } else if (type == "float") {
      EXPECT_TRUE(IsFloat(v)) << w[i - 1] << " " << v;
    } else if (type == "pattern") {
      EXPECT_TRUE(IsInt(v) || !EvalMoeLayerPattern(v).empty()) << v;
    } else {
      // Appended piecewise: GCC 12 reports a false -Wrestrict for "literal" + string&&.
      std::string choices = "|", needle = "|";
      choices.append(type, 7).append("|");
      needle.append(v).append("|");
      EXPECT_NE(choices.find(needle), std::string::npos) << w[i - 1] << " " << v << " not in " << type;
    }
  }
}

TEST(EmitMegatron, EveryFlagIsRealAndTyped) {
  for (const EmitInput& in : testing_util::Cases()) {
    SCOPED_TRACE(in.model.name);
    ExpectValidMegatron(EmitMegatron(in).text);
  }
}

TEST(EmitMegatron, DefaultScenarioCarriesTheLayout) {
  const EmitInput in = testing_util::DefaultWinner();
  const std::string t = EmitMegatron(in).text;
  EXPECT_NE(t.find("--tensor-model-parallel-size " + std::to_string(in.layout.tp)), std::string::npos) << t;
  EXPECT_NE(t.find("--global-batch-size 256"), std::string::npos);
  EXPECT_NE(t.find("--seq-length 8192"), std::string::npos);
  EXPECT_NE(t.find("--bf16"), std::string::npos);
  EXPECT_NE(t.find("--num-query-groups 8"), std::string::npos);
}

TEST(EmitMegatron, RoundTripThroughFromMegatron) {
  for (const EmitInput& in : testing_util::Cases()) {
    SCOPED_TRACE(in.model.name);
    const MegatronArgs a = ParseMegatronArgs(EmitMegatron(in).text);
    EXPECT_TRUE(a.ignored.empty());
    const Layout &x = in.layout, &y = a.layout;
    EXPECT_EQ(y.tp, x.tp);
    EXPECT_EQ(y.pp, x.pp);
    EXPECT_EQ(y.vp, x.vp);
    EXPECT_EQ(y.cp, x.cp);
    EXPECT_EQ(y.ep, x.ep);
    EXPECT_EQ(y.expert_tp(), x.expert_tp());
    EXPECT_EQ(y.sequence_parallel(), x.sequence_parallel());
    EXPECT_EQ(y.zero, x.zero);
    EXPECT_EQ(y.recompute, x.recompute);
    EXPECT_EQ(y.mbs, x.mbs);
    EXPECT_EQ(y.overlap_grad_reduce, x.overlap_grad_reduce);
    if (x.zero >= 1) {
      EXPECT_EQ(y.overlap_param_gather, x.overlap_param_gather);
    }
    EXPECT_EQ(y.overlap_tp_comm, x.overlap_tp_comm && x.tp > 1);
    EXPECT_EQ(y.overlap_pp_comm, x.overlap_pp_comm);
    EXPECT_EQ(a.training.seq, in.training.seq);
    EXPECT_EQ(a.training.global_batch, in.training.global_batch);
    EXPECT_EQ(a.training.precision, in.training.precision);
    const ModelSpec &m = in.model, &n = a.model;
    EXPECT_EQ(n.layers, m.layers);
    EXPECT_EQ(n.hidden, m.hidden);
    EXPECT_EQ(n.heads, m.heads);
    EXPECT_EQ(n.kv_heads, m.kv_heads);
    EXPECT_EQ(n.qk_head_dim(), m.qk_head_dim());
    EXPECT_EQ(n.vocab, m.vocab);
    if (m.dense_layers() > 0) {
      EXPECT_EQ(n.ffn_hidden, m.ffn_hidden);
    }
    EXPECT_EQ(n.mlp, m.mlp);
    EXPECT_EQ(n.norm, m.norm);
    EXPECT_EQ(n.attention, m.attention);
    EXPECT_EQ(n.tied_embeddings, m.tied_embeddings);
    EXPECT_EQ(n.experts, m.experts);
    EXPECT_EQ(n.topk, m.topk);
    EXPECT_EQ(n.moe_ffn_hidden, m.moe_ffn_hidden);
    EXPECT_EQ(n.moe_layers(), m.moe_layers());
    EXPECT_EQ(n.learned_positions, m.learned_positions);
    // The parameter count, the sum of every shape, is the same.
    EXPECT_EQ(CountParams(n).total(), CountParams(m).total());
  }
}

}  // namespace
}  // namespace paratune
