// Megatron-LM arguments: every emitted flag is a real Megatron-LM flag (list below, checked
// against megatron/training/arguments.py and its config dataclasses at NVIDIA/Megatron-LM
// d98e8a64ddf3, 2026-08-22) and its value parses as that flag's type; and emitting then reading
// back with --from-megatron gives the same layout and model.
#include <gtest/gtest.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <map>
#include <set>

#include "emit/emit.h"
#include "emit/emit_test_util.h"
#include "layout/pipeline_split.h"
#include "layout/megatron_args.h"
#include "model/catalog.h"
#include "util/test_util.h"

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
      {"--rotary-base", "int"},
      {"--rotary-percent", "float"},
      {"--use-rope-scaling", "switch"},
      {"--rope-scaling-factor", "float"},
      {"--rotary-seq-len-interpolation-factor", "int"},
      {"--rope-type", "choice:rope|yarn"},
      {"--rotary-scaling-factor", "float"},
      {"--mscale", "float"},
      {"--mscale-all-dim", "float"},
      {"--yarn-original-max-position-embeddings", "int"},
      {"--yarn-beta-fast", "float"},
      {"--yarn-beta-slow", "float"},
      {"--mtp-num-layers", "int"},
      {"--vocab-size", "int"},
      {"--padded-vocab-size", "int"},
      {"--num-experts", "int"},
      {"--moe-router-topk", "int"},
      {"--moe-router-num-groups", "int"},  // megatron/training/arguments.py (group-limited routing)
      {"--moe-router-group-topk", "int"},
      {"--moe-router-score-function", "choice:softmax|sigmoid"},  // data/megatron_flags.txt (TransformerConfig)
      {"--moe-router-enable-expert-bias", "switch"},
      {"--moe-router-topk-scaling-factor", "float"},
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
      {"--cp-comm-type", "choice:p2p|a2a|allgather|a2a+p2p"},  // arguments.py _add_distributed_args
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
      {"--grad-reduce-in-bf16", "switch"},  // megatron/training/arguments.py
      {"--use-precision-aware-optimizer", "switch"},
      {"--exp-avg-dtype", "choice:fp32|fp16|bf16|fp8"},
      {"--exp-avg-sq-dtype", "choice:fp32|fp16|bf16|fp8"},
      {"--overlap-grad-reduce", "switch"},
      {"--overlap-param-gather", "switch"},
      {"--tp-comm-overlap", "switch"},
      {"--no-overlap-p2p-communication", "switch"},
      {"--overlap-moe-expert-parallel-comm", "switch"},  // Megatron-Core combined 1F1B EP overlap
      {"--delay-wgrad-compute", "switch"},
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

// Uneven pipeline splits in each of Megatron's forms, and the schedules.
std::vector<EmitInput> PipelineCases() {
  std::vector<EmitInput> v;
  Layout a;  // Llama-3.1-405B, pp 8: --account-for-embedding/loss-in-pipeline-split, ZB-H1
  a.tp = 8;
  a.pp = 8;
  a.pp_layout = AccountForSplit(126, 8, 1, true, true);
  a.schedule = ScheduleKind::kZbH1;
  v.push_back(testing_util::Fixed("llama-3.1-405b", "H100", 1024, a, Training{8192, 1024, Precision::kBf16}));
  Layout b = a;  // the same with vp 2 (interleaved): chunk 0 and chunk 15 one layer short
  b.vp = 2;
  b.pp_layout = AccountForSplit(126, 8, 2, true, true);
  b.schedule.reset();
  v.push_back(testing_util::Fixed("llama-3.1-405b", "H100", 1024, b, Training{8192, 1024, Precision::kBf16}));
  Layout c;  // DeepSeek-V3, pp 4: --decoder-first/last-pipeline-num-layers 14 / 15
  c.tp = 2;
  c.pp = 4;
  c.ep = 8;
  c.etp = 1;
  c.pp_layout = {14, 16, 16, 15};
  v.push_back(testing_util::Fixed("deepseek-v3", "H100", 256, c, Training{4096, 256, Precision::kBf16}));
  Layout d;  // a layout no flag but the layout string expresses (MTP layer before the loss)
  d.tp = 2;
  d.pp = 2;
  d.vp = 2;
  d.ep = 8;
  d.etp = 1;
  d.pp_layout = {10, 20, 20, 11};
  d.grad_reduce_in_fp32 = false;                          // --grad-reduce-in-bf16 round-trips too
  d.optimizer_states = OptimizerStates::kFp32Remainders;  // so does --use-precision-aware-optimizer
  v.push_back(testing_util::Fixed("deepseek-v3", "H100", 256, d, Training{4096, 256, Precision::kBf16}));
  return v;
}

TEST(EmitMegatron, RoundTripThroughFromMegatron) {
  std::vector<EmitInput> cases = testing_util::Cases();
  for (EmitInput& in : PipelineCases()) cases.push_back(std::move(in));
  for (const EmitInput& in : cases) {
    SCOPED_TRACE(in.model.name);
    const MegatronArgs a = ParseMegatronArgs(EmitMegatron(in).text);
    EXPECT_TRUE(a.ignored.empty());
    const Layout &x = in.layout, &y = a.layout;
    EXPECT_EQ(y.tp, x.tp);
    EXPECT_EQ(y.pp, x.pp);
    EXPECT_EQ(y.vp, x.vp);
    // The layers of every chunk; the schedule Megatron runs (interleaved with vp > 1, else 1F1B:
    // ZB-H1 has no flag and comes back as 1F1B, with a note, EmitMegatron.ZeroBubbleIsANote).
    EXPECT_EQ(ChunkLayers(a.model.layers, y), ChunkLayers(in.model.layers, x));
    EXPECT_EQ(y.pipeline_schedule(),
              x.pipeline_schedule() == ScheduleKind::kZbH1 ? ScheduleKind::k1F1B : x.pipeline_schedule());
    EXPECT_EQ(y.cp, x.cp);
    EXPECT_EQ(y.ep, x.ep);
    EXPECT_EQ(y.expert_tp(), x.expert_tp());
    EXPECT_EQ(y.sequence_parallel(), x.sequence_parallel());
    EXPECT_EQ(y.zero, x.zero);
    EXPECT_EQ(y.recompute, x.recompute);
    EXPECT_EQ(y.mbs, x.mbs);
    EXPECT_EQ(y.overlap_grad_reduce, x.overlap_grad_reduce);
    EXPECT_EQ(y.grad_reduce_in_fp32, x.grad_reduce_in_fp32);
    EXPECT_EQ(y.optimizer_states, x.optimizer_states);
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

// The value that follows `flag` in Megatron argument text ("" when absent; "on" for a switch).
std::string FlagValue(const std::string& text, const std::string& flag) {
  const std::vector<std::string> w = SplitShellWords(text);
  for (size_t i = 0; i < w.size(); ++i)
    if (w[i] == flag) return i + 1 < w.size() && w[i + 1].rfind("--", 0) != 0 ? w[i + 1] : "on";
  return "";
}

int Count(const std::string& text, const std::string& flag) {
  int n = 0;
  for (const std::string& w : SplitShellWords(text)) n += w == flag;
  return n;
}

std::string AllNotes(const Emitted& e) {
  std::string all;
  for (const std::string& n : e.notes) all += n + "\n";
  return all;
}

// Each uneven split in Megatron's own flags (megatron/training/arguments.py _add_distributed_args,
// transformer_block.py get_num_layers_to_build).
TEST(EmitMegatron, PipelineSplitFlags) {
  const std::vector<EmitInput> c = PipelineCases();
  const std::string a = EmitMegatron(c[0]).text, b = EmitMegatron(c[1]).text, d = EmitMegatron(c[2]).text,
                    e = EmitMegatron(c[3]).text;
  EXPECT_EQ(FlagValue(a, "--account-for-embedding-in-pipeline-split"), "on") << a;
  EXPECT_EQ(FlagValue(a, "--account-for-loss-in-pipeline-split"), "on");
  EXPECT_EQ(FlagValue(a, "--num-layers-per-virtual-pipeline-stage"), "");
  // vp 2: (126 + 2) / (8 * 2) = 8 layers per virtual stage, counted as Megatron counts them.
  EXPECT_EQ(FlagValue(b, "--num-layers-per-virtual-pipeline-stage"), "8") << b;
  EXPECT_EQ(FlagValue(d, "--decoder-first-pipeline-num-layers"), "14") << d;
  EXPECT_EQ(FlagValue(d, "--decoder-last-pipeline-num-layers"), "15");
  EXPECT_EQ(FlagValue(d, "--account-for-loss-in-pipeline-split"), "");
  EXPECT_EQ(FlagValue(e, "--pipeline-model-parallel-layout"), "Et*10|t*20|t*20|t*11mL") << e;
  EXPECT_EQ(FlagValue(e, "--num-virtual-stages-per-pipeline-rank"), "");
}

TEST(EmitMegatron, ZeroBubbleIsANote) {
  const Emitted e = EmitMegatron(PipelineCases()[0]);
  EXPECT_CONTAINS(AllNotes(e), "--enable-zero-bubble --zero-bubble-max-pending-backward 8");
  EXPECT_EQ(Count(e.text, "--enable-zero-bubble"), 0);
}

// BF16 optimizer states have no exact Megatron form: the precision-aware optimizer with BF16
// moments, which still keeps the 16-bit remainders of the master, said in a note.
TEST(EmitMegatron, Bf16OptimizerStatesAreThePrecisionAwareOptimizerWithANote) {
  EmitInput in = testing_util::Cases()[0];
  in.layout.zero = 1;
  in.layout.optimizer_states = OptimizerStates::kBf16;
  const Emitted e = EmitMegatron(in);
  ExpectValidMegatron(e.text);
  EXPECT_EQ(Count(e.text, "--use-precision-aware-optimizer"), 1);
  EXPECT_CONTAINS(e.text, "--exp-avg-dtype bf16");
  EXPECT_CONTAINS(e.text, "--exp-avg-sq-dtype bf16");
  EXPECT_CONTAINS(AllNotes(e), "6 bytes per parameter where paratune estimated 4");
  in.layout.optimizer_states = OptimizerStates::kFp32;
  EXPECT_EQ(Count(EmitMegatron(in).text, "--use-precision-aware-optimizer"), 0);
}

TEST(FromMegatron, PipelineSplitFlagsAreChecked) {
  const std::string base =
      "--num-layers 126 --hidden-size 128 --num-attention-heads 4 --vocab-size 100 "
      "--pipeline-model-parallel-size 8 ";
  EXPECT_EQ(ParseMegatronArgs(base + "--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split")
                .layout.pp_layout,
            (std::vector<int>{15, 16, 16, 16, 16, 16, 16, 15}));
  EXPECT_EQ(ParseMegatronArgs(base + "--pipeline-model-parallel-layout 'E,t*15|(t*16|)*6,t*15,L'").layout.pp_layout,
            (std::vector<int>{15, 16, 16, 16, 16, 16, 16, 15}));
  EXPECT_THROW(ParseMegatronArgs(base + "--account-for-embedding-in-pipeline-split"), InputError);   // 127 / 8
  EXPECT_THROW(ParseMegatronArgs(base + "--decoder-first-pipeline-num-layers 15"), InputError);      // 111 / 7
  EXPECT_THROW(ParseMegatronArgs(base + "--pipeline-model-parallel-layout 't*126|L'"), InputError);  // no E
  EXPECT_THROW(ParseMegatronArgs(base + "--pipeline-model-parallel-layout 'E,t*126,L' "
                                        "--account-for-loss-in-pipeline-split"),
               InputError);
}

// Issue 9: Llama-3.1 was emitted with Megatron's defaults (rotary base 10000, no scaling) and the
// training sequence as --max-position-embeddings.
TEST(EmitMegatron, Llama31CarriesTheConfigsRope) {
  const EmitInput in = testing_util::DefaultWinner();  // Llama-3.1-70B, sequence 8192
  ASSERT_EQ(in.model.name, "llama-3.1-70b");
  const std::string t = EmitMegatron(in).text;
  EXPECT_EQ(FlagValue(t, "--position-embedding-type"), "rope");
  EXPECT_EQ(FlagValue(t, "--rotary-base"), "500000");
  EXPECT_EQ(FlagValue(t, "--use-rope-scaling"), "on");
  EXPECT_EQ(FlagValue(t, "--rope-scaling-factor"), "8");
  EXPECT_EQ(FlagValue(t, "--max-position-embeddings"), "131072");
  EXPECT_EQ(FlagValue(t, "--seq-length"), "8192");
  EXPECT_EQ(FlagValue(t, "--rotary-percent"), "");  // 1.0 is Megatron's default
  // Llama-3 has no scaling, Llama-2 the default base.
  const std::string l3 = EmitMegatron(testing_util::CatalogCase("llama-3-8b")).text;
  EXPECT_EQ(FlagValue(l3, "--rotary-base"), "500000");
  EXPECT_EQ(FlagValue(l3, "--use-rope-scaling"), "");
  EXPECT_EQ(FlagValue(l3, "--max-position-embeddings"), "8192");
  EXPECT_EQ(FlagValue(EmitMegatron(testing_util::CatalogCase("llama-2-7b")).text, "--rotary-base"), "10000");
}

TEST(EmitMegatron, DeepseekYarnPartialRotaryAndMtp) {
  const Emitted ds = EmitMegatron(testing_util::CatalogCase("deepseek-v3"));
  EXPECT_EQ(FlagValue(ds.text, "--position-embedding-type"), "rope");
  EXPECT_EQ(FlagValue(ds.text, "--rope-type"), "yarn");
  EXPECT_EQ(FlagValue(ds.text, "--rotary-base"), "10000");
  EXPECT_EQ(FlagValue(ds.text, "--rotary-scaling-factor"), "40");
  EXPECT_EQ(FlagValue(ds.text, "--mscale"), "1");
  EXPECT_EQ(FlagValue(ds.text, "--mscale-all-dim"), "1");
  EXPECT_EQ(FlagValue(ds.text, "--max-position-embeddings"), "163840");
  EXPECT_EQ(FlagValue(ds.text, "--mtp-num-layers"), "1");
  // The router of its config.json (scoring_func sigmoid, topk_method noaux_tc,
  // routed_scaling_factor 2.5), which the emitted arguments lacked (issue 32).
  EXPECT_EQ(FlagValue(ds.text, "--moe-router-score-function"), "sigmoid");
  EXPECT_EQ(FlagValue(ds.text, "--moe-router-enable-expert-bias"), "on");
  EXPECT_EQ(FlagValue(ds.text, "--moe-router-topk-scaling-factor"), "2.5");
  EXPECT_EQ(ds.text.find("--moe-router-score-function"), ds.text.find("--moe-router-score-function sigmoid"));
  EXPECT_EQ(EmitMegatron(testing_util::CatalogCase("mixtral-8x7b")).text.find("--moe-router-score-function"),
            std::string::npos);
  EXPECT_EQ(AllNotes(ds).find("YaRN for MLA"), std::string::npos) << AllNotes(ds);  // 4096, 32, 1 match
  EXPECT_CONTAINS(AllNotes(ds), "--mtp-num-layers 1");
  const std::string neox = EmitMegatron(testing_util::CatalogCase("gpt-neox-20b")).text;
  EXPECT_EQ(FlagValue(neox, "--rotary-percent"), "0.25");
  EXPECT_EQ(FlagValue(EmitMegatron(testing_util::CatalogCase("nemotron-4-340b")).text, "--rotary-percent"), "0.5");
  const std::string mixtral = EmitMegatron(testing_util::CatalogCase("mixtral-8x22b")).text;
  EXPECT_EQ(FlagValue(mixtral, "--rotary-base"), "1000000");
  EXPECT_EQ(FlagValue(mixtral, "--ffn-hidden-size"), "");  // no dense layer
  EXPECT_EQ(FlagValue(mixtral, "--moe-ffn-hidden-size"), "16384");
}

TEST(EmitMegatron, WhatMegatronCannotExpressIsNoted) {
  // ALiBi (MPT).
  const Emitted mpt = EmitMegatron(testing_util::CatalogCase("mpt-7b"));
  EXPECT_EQ(FlagValue(mpt.text, "--position-embedding-type"), "none");
  EXPECT_CONTAINS(AllNotes(mpt), "ALiBi");
  // A llama3 scaling other than Megatron's fixed 1 / 4 / 8192.
  EmitInput in = testing_util::CatalogCase("llama-3.1-8b");
  in.model.rope_scaling.original_max_positions = 4096;
  Emitted e = EmitMegatron(in);
  EXPECT_EQ(FlagValue(e.text, "--use-rope-scaling"), "on");
  EXPECT_CONTAINS(AllNotes(e), "original_max_position_embeddings 8192; the config has 1, 4, 4096");
  // YaRN on MLA with betas Megatron cannot set.
  in = testing_util::CatalogCase("deepseek-v3");
  in.model.rope_scaling.beta_fast = 16;
  EXPECT_CONTAINS(AllNotes(EmitMegatron(in)), "uses MLATransformerConfig's 4096, 32, 1; the config has 4096, 16, 1");
  // Dynamic NTK and non-integer linear scaling: emitted without, and said so.
  in = testing_util::CatalogCase("llama-2-7b");
  in.model.rope_scaling = {RopeScalingKind::kDynamic, 2.0};
  e = EmitMegatron(in);
  EXPECT_CONTAINS(AllNotes(e), "RoPE scaling 'dynamic' (factor 2) has no Megatron-LM equivalent");
  EXPECT_EQ(FlagValue(e.text, "--use-rope-scaling"), "");
  in.model.rope_scaling = {RopeScalingKind::kLinear, 2.5};
  EXPECT_CONTAINS(AllNotes(EmitMegatron(in)), "needs an integer factor");
  in.model.rope_scaling = {RopeScalingKind::kLinear, 4.0};
  EXPECT_EQ(FlagValue(EmitMegatron(in).text, "--rotary-seq-len-interpolation-factor"), "4");
  // YaRN on a GQA model: Megatron's yarn position type with every parameter.
  in.model.rope_scaling = {RopeScalingKind::kYarn, 4.0, 32768, 0, 0, 32, 1, 1.0, 0.0, 0};
  e = EmitMegatron(in);
  EXPECT_EQ(FlagValue(e.text, "--position-embedding-type"), "yarn");
  EXPECT_EQ(FlagValue(e.text, "--rotary-scaling-factor"), "4");
  EXPECT_EQ(FlagValue(e.text, "--yarn-original-max-position-embeddings"), "32768");
  // A training sequence beyond the context: Megatron asserts max positions >= sequence.
  in = testing_util::CatalogCase("llama-2-7b");
  in.training.seq = 8192;
  e = EmitMegatron(in);
  EXPECT_EQ(FlagValue(e.text, "--max-position-embeddings"), "8192");
  EXPECT_CONTAINS(AllNotes(e), "--seq-length 8192 exceeds the model's max_position_embeddings 4096");
}

// Issue 9, item 3: one FP8 recipe per framework on every GPU, one FP4 recipe.
TEST(EmitMegatron, OneFp8RecipeOnEveryGpu) {
  for (const char* gpu : {"H100", "H200", "B200", "B300"}) {
    SCOPED_TRACE(gpu);
    const std::string t = EmitMegatron(testing_util::CatalogCase("llama-3.1-8b", Precision::kFp8, gpu)).text;
    EXPECT_EQ(FlagValue(t, "--fp8-format"), "hybrid");
    EXPECT_EQ(FlagValue(t, "--fp8-recipe"), "tensorwise");
    EXPECT_EQ(Count(t, "--fp8-recipe"), 1);
    EXPECT_EQ(Count(t, "--fp4-recipe"), 0);
    EXPECT_EQ(Count(t, "--bf16"), 1);
    if (std::string(gpu)[0] == 'B') {  // FP4 tensor cores: Blackwell only (a layout rule)
      const std::string f4 = EmitMegatron(testing_util::CatalogCase("llama-3.1-8b", Precision::kFp4, gpu)).text;
      EXPECT_EQ(FlagValue(f4, "--fp4-format"), "e2m1");
      EXPECT_EQ(FlagValue(f4, "--fp4-recipe"), "nvfp4");
      EXPECT_EQ(Count(f4, "--fp8-recipe"), 0);
    }
    const std::string bf = EmitMegatron(testing_util::CatalogCase("llama-3.1-8b", Precision::kBf16, gpu)).text;
    EXPECT_EQ(Count(bf, "--fp8-format") + Count(bf, "--fp4-format"), 0);
  }
  // The named constants are the ones documented (docs/frameworks.md).
  EXPECT_STREQ(kMegatronFp8Format, "hybrid");
  EXPECT_STREQ(kMegatronFp8Recipe, "tensorwise");
}

// Fields Megatron-LM arguments cannot carry, each with the reason; every other field of the
// catalog's ModelSpec must come back from ParseMegatronArgs unchanged.
struct Uncarried {
  std::string field;
  std::string why;
};

std::vector<Uncarried> MegatronUncarried(const ModelSpec& m) {
  std::vector<Uncarried> v = {
      {"name", "Megatron arguments name no model (read back as 'megatron-args')"},
      {"architecture", "Megatron builds its own GPT model class (read back as 'MegatronGPTModel')"}};
  if (m.positions == PositionKind::kAlibi)
    v.push_back({"positions", "Megatron has no ALiBi: emitted --position-embedding-type none, with a note"});
  if (m.rope_scaling.kind == RopeScalingKind::kLlama3 && m.rope_scaling.high_freq_factor != 4)
    v.push_back({"rope_scaling.high_freq_factor",
                 "Megatron fixes llama3's high_freq_factor at 4 (Llama 4 Scout has 1), with a note"});
  if (m.o_bias && !m.linear_bias)
    v.push_back({"o_bias", "InternLM's output-projection bias: not emitted, with a note"});
  if (m.attention == AttentionKind::kMla && m.rope_scaling.kind == RopeScalingKind::kYarn &&
      m.rope_scaling.beta_fast != 32)  // MLATransformerConfig's beta_fast (emit/megatron.cc)
    v.push_back({"rope_scaling.beta_fast", "MLA YaRN: Megatron fixes beta_fast (Kimi K2 has 1), with a note"});
  if (m.attention_sinks) v.push_back({"attention_sinks", "GPT-OSS sinks: not emitted, with a note"});
  if (m.router_bias) v.push_back({"router_bias", "GPT-OSS router bias: not emitted, with a note"});
  if (m.sliding_window_layers > 0) {
    v.push_back({"sliding_window", "GPT-OSS sliding windows: not emitted, with a note"});
    v.push_back({"sliding_window_layers", "the same note"});
  }
  return v;
}

// Issue 9, item 2: for every catalog model the Megatron arguments build the catalog's model.
TEST(EmitMegatron, EveryCatalogModelRoundTrips) {
  for (const std::string& id : CatalogModelIds()) {
    SCOPED_TRACE(id);
    const EmitInput in = testing_util::CatalogCase(id);
    const Emitted e = EmitMegatron(in);
    ExpectValidMegatron(e.text);
    const MegatronArgs a = ParseMegatronArgs(e.text);
    EXPECT_TRUE(a.ignored.empty());
    const std::vector<Uncarried> uncarried = MegatronUncarried(in.model);
    std::set<std::string> expected, found;
    for (const Uncarried& u : uncarried) expected.insert(u.field);
    for (const std::string& d : ModelDifferences(in.model, a.model)) {
      const std::string field = d.substr(0, d.find(':'));
      found.insert(field);
      EXPECT_TRUE(expected.count(field)) << "Megatron round trip changed " << d;
    }
    // The exceptions are exact: each one still applies.
    EXPECT_EQ(found, expected);
    // With the uncarried fields restored the specs are equal (operator== catches a member
    // that ModelDifferences would miss).
    ModelSpec back = a.model;
    for (const Uncarried& u : uncarried) {
      if (u.field == "name") {
        back.name = in.model.name;
      } else if (u.field == "architecture") {
        back.architecture = in.model.architecture;
      } else if (u.field == "positions") {
        back.positions = in.model.positions;
      } else if (u.field == "rope_scaling.high_freq_factor") {
        back.rope_scaling.high_freq_factor = in.model.rope_scaling.high_freq_factor;
        EXPECT_CONTAINS(AllNotes(e), "llama3 RoPE scaling: Megatron takes only the factor");
      } else if (u.field == "o_bias") {
        back.o_bias = in.model.o_bias;
        EXPECT_CONTAINS(AllNotes(e), "output projection's bias (InternLM)");
      } else if (u.field == "rope_scaling.beta_fast") {
        back.rope_scaling.beta_fast = in.model.rope_scaling.beta_fast;
        EXPECT_CONTAINS(AllNotes(e), "YaRN for MLA: Megatron has no flags");
      } else if (u.field == "attention_sinks") {
        back.attention_sinks = in.model.attention_sinks;
        EXPECT_CONTAINS(AllNotes(e), "attention sinks");
      } else if (u.field == "router_bias") {
        back.router_bias = in.model.router_bias;
        EXPECT_CONTAINS(AllNotes(e), "router's bias");
      } else if (u.field == "sliding_window") {
        back.sliding_window = in.model.sliding_window;
        EXPECT_CONTAINS(AllNotes(e), "sliding-window attention");
      } else if (u.field == "sliding_window_layers") {
        back.sliding_window_layers = in.model.sliding_window_layers;
      } else {
        ADD_FAILURE() << "no restore for " << u.field;
      }
      if (u.field == "positions") {
        EXPECT_CONTAINS(AllNotes(e), "ALiBi");
      }
    }
    EXPECT_TRUE(back == in.model);
    // The Megatron model lacks exactly the uncarried parameters: GPT-OSS's sinks (one per head
    // per layer) and router biases (one per expert per MoE layer).
    int64_t missing = 0;
    if (in.model.attention_sinks) missing += in.model.heads * in.model.layers;
    if (in.model.router_bias) missing += in.model.experts * in.model.moe_layers();
    if (in.model.o_bias && !in.model.linear_bias) missing += in.model.hidden * in.model.layers;
    EXPECT_EQ(CountParams(a.model).total(), CountParams(in.model).total() - missing);
  }
}

}  // namespace
}  // namespace paratune

namespace paratune {
namespace {

// FP16 is its own precision: --fp16 (Megatron's dynamic loss scaling), read back as FP16, not
// silently BF16; DeepSpeed and torchtitan get their FP16 switches too.
TEST(EmitPrecision, Fp16IsEmittedAndReadBack) {
  const EmitInput in = testing_util::CatalogCase("llama-3.1-8b", Precision::kFp16, "A100-80GB");
  const std::string args = EmitMegatron(in).text;
  EXPECT_NE(args.find("--fp16"), std::string::npos) << args;
  EXPECT_EQ(args.find("--bf16"), std::string::npos) << args;
  EXPECT_EQ(ParseMegatronArgs(args).training.precision, Precision::kFp16);
  EXPECT_EQ(ParseMegatronArgs("--num-layers 2 --hidden-size 64 --num-attention-heads 4 --vocab-size 100 --bf16")
                .training.precision,
            Precision::kBf16);
  const nlohmann::json ds = nlohmann::json::parse(EmitDeepSpeed(in).text);
  EXPECT_EQ(ds["fp16"]["enabled"], true);
  EXPECT_FALSE(ds.contains("bf16"));
  EXPECT_NE(EmitTorchtitan(in).text.find("mixed_precision_param = \"float16\""), std::string::npos);
}

// Issue 33: selective recomputation by module goes out as Megatron's --recompute-modules words and
// comes back.
TEST(EmitMegatron, RecomputeModulesRoundTrip) {
  EmitInput in = testing_util::CatalogCase("deepseek-v3");
  in.layout.recompute = Recompute::kSelective;
  in.layout.recompute_modules =
      RecomputeModuleBit(RecomputeModule::kLayernorm) | RecomputeModuleBit(RecomputeModule::kMlaUpProj);
  const Emitted e = EmitMegatron(in);
  EXPECT_CONTAINS(e.text, "--recompute-modules layernorm mla_up_proj");
  const MegatronArgs a = ParseMegatronArgs(e.text);
  EXPECT_EQ(a.layout.recompute, Recompute::kSelective);
  EXPECT_EQ(a.layout.recompute_modules, in.layout.recompute_modules);
  EXPECT_THROW(
      ParseMegatronArgs("--num-layers 2 --hidden-size 64 --num-attention-heads 4 --recompute-granularity selective "
                        "--recompute-modules core_attn attn_core"),
      InputError);
}

// Issue 33: the stack's features go out as Megatron-LM's flags and come back.
TEST(EmitMegatron, StackFeaturesRoundTrip) {
  EmitInput in = testing_util::CatalogCase("qwen3-30b-a3b");
  in.layout.fused_cross_entropy = true;
  StackFeatures& st = in.layout.stack;
  st.moe_dispatcher = MoeDispatcher::kHybridEp;
  st.fused_permute = st.fused_router = true;
  st.cuda_graphs = CudaGraphs::kStatic;
  const Emitted e = EmitMegatron(in);
  EXPECT_CONTAINS(e.text, "--moe-token-dispatcher-type flex");
  EXPECT_CONTAINS(e.text, "--moe-flex-dispatcher-backend hybridep");
  EXPECT_CONTAINS(e.text, "--cuda-graph-scope attn moe_router moe_preprocess");
  const MegatronArgs a = ParseMegatronArgs(e.text);
  EXPECT_TRUE(a.ignored.empty());
  EXPECT_TRUE(a.layout.fused_cross_entropy);
  EXPECT_EQ(a.layout.stack.moe_dispatcher, MoeDispatcher::kHybridEp);
  EXPECT_TRUE(a.layout.stack.fused_permute);
  EXPECT_TRUE(a.layout.stack.fused_router);
  EXPECT_TRUE(a.layout.stack.grouped_gemm);
  EXPECT_EQ(a.layout.stack.cuda_graphs, CudaGraphs::kStatic);
  in.layout.stack.cuda_graphs = CudaGraphs::kFull;
  EXPECT_EQ(ParseMegatronArgs(EmitMegatron(in).text).layout.stack.cuda_graphs, CudaGraphs::kFull);
  in.layout.stack.grouped_gemm = false;
  EXPECT_FALSE(ParseMegatronArgs(EmitMegatron(in).text).layout.stack.grouped_gemm);
}

}  // namespace
}  // namespace paratune
