// The planner: never returns a layout that breaks a rule or does not fit (property test over
// random models and clusters), respects pins, bounds and the objective, ranks deterministically,
// and picks what the craft expects on known cases.
#include "plan/planner.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "hardware/hardware_catalog.h"
#include "layout/constraints.h"
#include "model/catalog.h"
#include "plan/explain.h"
#include "plan/plan_json.h"
#include "plan/ranking.h"
#include "step/estimate_json.h"
#include "scenario/default_scenario.h"
#include "util/error.h"

namespace paratune {
namespace {

PlanRequest Request(const std::string& model, const std::string& gpu, int gpus, Training t = DefaultTraining()) {
  PlanRequest r;
  r.model = LoadModel(model);
  r.cluster = HardwareCatalog::BuiltIn().Cluster(gpu, gpus);
  r.training = t;
  r.switches = DefaultLayout();
  return r;
}

// Every returned layout passes CheckLayout, fits the memory limit, and the list is in order.
void ExpectSound(const PlanRequest& r, const PlanResult& res) {
  ASSERT_FALSE(res.ranked.empty());
  const double limit = (1 - r.headroom) * r.cluster.gpu.hbm_bytes;
  for (size_t i = 0; i < res.ranked.size(); ++i) {
    const Estimate& e = res.ranked[i];
    Layout l = e.layout;
    const auto v = CheckLayout(r.model, r.cluster, e.training, l, r.options.rules);
    EXPECT_TRUE(v.empty()) << DescribeViolations(v);
    EXPECT_LE(l.tp, r.cluster.fabric.nvlink_domain);
    EXPECT_LE(e.peak_memory_bytes, limit);
    EXPECT_TRUE(e.fits);
    if (i > 0) {
      EXPECT_FALSE(RanksBefore(e, res.ranked[i - 1], r.objective, r.cluster.fabric.nvlink_domain)) << i;
    }
  }
}

TEST(Planner, PropertyNeverReturnsInvalidOrOversizedLayouts) {
  std::mt19937 rng(20261130);
  auto pick = [&](std::initializer_list<int64_t> v) {
    return *(v.begin() + std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng));
  };
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const std::vector<const GpuSpec*> gpus = hw.All();
  int planned = 0;
  for (int iter = 0; iter < 30; ++iter) {
    InlineDims d;
    d.heads = pick({8, 12, 16, 32, 40, 64});
    const int64_t head_dim = pick({64, 128});
    d.hidden = d.heads * head_dim;
    d.kv_heads = pick({1, 2, 4, 8});
    if (d.heads % d.kv_heads != 0) d.kv_heads = d.heads;
    d.layers = pick({2, 6, 12, 24, 30, 32, 48, 60, 80});
    d.vocab = pick({32000, 50257, 128256, 151936});
    d.ffn = 256 * pick({4, 11, 28, 56, 112});
    if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
      d.experts = pick({8, 16, 64});
      d.topk = pick({1, 2, 4});
    }
    PlanRequest r;
    r.model = ModelFromDims(d);
    r.model.name = "random-" + std::to_string(iter);
    const GpuSpec& g = *gpus[std::uniform_int_distribution<size_t>(0, gpus.size() - 1)(rng)];
    const HardwareCatalog hw = HardwareCatalog::BuiltIn();
    r.cluster = hw.Cluster(g.name, hw.FindFabric(g.name).gpus_per_node * pick({1, 2, 3, 4}));
    r.training.seq = pick({2048, 4096, 8192, 16384, 32768});
    r.training.global_batch = pick({8, 16, 24, 32, 64});
    r.any_precision = iter % 3 == 0;
    r.switches = DefaultLayout();
    r.top = 1000;
    r.max_vp = 4;  // keeps the test fast; the rules are checked on every layout all the same
    r.objective = iter % 4 == 0 ? Objective::kMemory : Objective::kThroughput;
    try {
      const PlanResult res = Plan(r);
      ExpectSound(r, res);
      ++planned;
    } catch (const InputError& e) {
      // Nothing fits (a model too large for the cluster) is a valid answer; it must say why.
      EXPECT_NE(std::string(e.what()).find("no layout"), std::string::npos) << e.what();
    }
  }
  EXPECT_GE(planned, 15);
}

TEST(Planner, Llama8BOnOneH100NodeKeepsTpInNodeAndNoPipeline) {
  PlanRequest r = Request("llama-3.1-8b", "H100", 8, Training{8192, 64, Precision::kBf16});
  const PlanResult res = Plan(r);
  ExpectSound(r, res);
  EXPECT_LE(res.ranked[0].layout.tp, 8);
  EXPECT_EQ(res.ranked[0].layout.pp, 1);
}

TEST(Planner, DefaultScenarioExplainsWinnerAndRules) {
  PlanRequest r = Request(kDefaultModel, kDefaultGpu, kDefaultNodes * 8);
  const PlanResult res = Plan(r);
  ExpectSound(r, res);
  EXPECT_EQ(res.ranked.size(), 10u);
  std::string all;
  for (const std::string& s : res.explanation) all += s + "\n";
  EXPECT_NE(all.find("#2 differs in"), std::string::npos) << all;
  // The terms that differ, said as the gap's sources or, for a gap within the model's noise, as is.
  EXPECT_NE(all.find("(#2 minus #1): "), std::string::npos) << all;
  if (res.ranked[0].layout.recompute == Recompute::kNone) {
    EXPECT_NE(all.find("recompute none fits:"), std::string::npos);
  }
  bool tp_rule = false, cp_rule = false;
  for (const RuleNote& n : res.rules) {
    tp_rule = tp_rule || n.rule == "tp-in-nvlink-domain";
    cp_rule = cp_rule || n.rule == "cp-long-sequences";
  }
  EXPECT_TRUE(tp_rule);
  EXPECT_TRUE(cp_rule);
  for (const Estimate& e : res.ranked) EXPECT_EQ(e.layout.cp, 1);  // seq 8192 < 16384
}

TEST(Planner, PinnedDimensionsAreRespected) {
  PlanRequest r = Request(kDefaultModel, kDefaultGpu, 32);
  r.tp = 4;
  r.zero = 1;
  r.recompute = Recompute::kFull;
  r.mbs = 1;
  r.top = 100;
  const PlanResult res = Plan(r);
  ExpectSound(r, res);
  for (const Estimate& e : res.ranked) {
    EXPECT_EQ(e.layout.tp, 4);
    EXPECT_EQ(e.layout.zero, 1);
    EXPECT_EQ(e.layout.recompute, Recompute::kFull);
    EXPECT_EQ(e.layout.mbs, 1);
  }
}

TEST(Planner, BoundsAreRespected) {
  PlanRequest r = Request("llama-3.1-8b", "H100", 16, Training{4096, 64, Precision::kBf16});
  r.max_tp = 2;
  r.max_pp = 2;
  r.max_mbs = 1;
  r.top = 100;
  const PlanResult res = Plan(r);
  for (const Estimate& e : res.ranked) {
    EXPECT_LE(e.layout.tp, 2);
    EXPECT_LE(e.layout.pp, 2);
    EXPECT_EQ(e.layout.mbs, 1);
  }
}

TEST(Planner, MemoryObjectiveOrdersByPeakMemory) {
  PlanRequest r = Request("llama-3.1-8b", "H100", 16, Training{4096, 64, Precision::kBf16});
  r.objective = Objective::kMemory;
  r.top = 50;
  const PlanResult res = Plan(r);
  ExpectSound(r, res);
  for (size_t i = 1; i < res.ranked.size(); ++i)
    EXPECT_LE(std::llround(res.ranked[i - 1].peak_memory_bytes / 1e6),
              std::llround(res.ranked[i].peak_memory_bytes / 1e6));
}

TEST(Planner, DeterministicAcrossRuns) {
  PlanRequest r = Request("mixtral-8x7b", "H100", 16, Training{4096, 32, Precision::kBf16});
  r.top = 20;
  const std::string a = PlanToJson(Plan(r), r).dump();
  const std::string b = PlanToJson(Plan(r), r).dump();
  EXPECT_EQ(a, b);
}

TEST(Planner, HeadroomLowersTheLimit) {
  PlanRequest r = Request("llama-3.1-8b", "H100", 16, Training{4096, 64, Precision::kBf16});
  r.top = 10000;
  const PlanResult loose = Plan(r);
  r.headroom = 0.4;
  const PlanResult tight = Plan(r);
  ExpectSound(r, tight);
  EXPECT_LT(tight.fitting, loose.fitting);
  EXPECT_NEAR(tight.memory_limit_bytes, 0.6 * r.cluster.gpu.hbm_bytes, 1);
}

TEST(Planner, AnyPrecisionOnlyUsesSupportedPrecisions) {
  PlanRequest r = Request("llama-3.1-8b", "H100", 16, Training{4096, 64, Precision::kBf16});
  r.any_precision = true;
  r.top = 10000;
  const PlanResult res = Plan(r);
  bool fp8 = false;
  for (const Estimate& e : res.ranked) {
    EXPECT_NE(e.training.precision, Precision::kFp4);  // H100 has no FP4 tensor cores
    fp8 = fp8 || e.training.precision == Precision::kFp8;
  }
  EXPECT_TRUE(fp8);
}

TEST(Planner, ContextParallelConsideredForLongSequences) {
  Training t = DefaultTraining();
  t.seq = 32768;
  t.global_batch = 16;
  PlanRequest r = Request("llama-3.1-8b", "B300", 16, t);
  r.top = 100000;
  const PlanResult res = Plan(r);
  bool cp = false;
  for (const Estimate& e : res.ranked) cp = cp || e.layout.cp > 1;
  EXPECT_TRUE(cp);
}

TEST(Planner, MoeSearchKeepsExpertGroupsValid) {
  PlanRequest r = Request("mixtral-8x7b", "H100", 32, Training{4096, 64, Precision::kBf16});
  r.top = 1000;
  const PlanResult res = Plan(r);
  ExpectSound(r, res);
  bool ep_rule = false;
  for (const RuleNote& n : res.rules) ep_rule = ep_rule || n.rule == "ep-prefers-node";
  EXPECT_TRUE(ep_rule);
}

TEST(Ranking, ExpertGroupInsideDomainWinsTies) {
  Estimate a, b;
  a.tokens_per_s_per_gpu = b.tokens_per_s_per_gpu = 1000;
  a.peak_memory_bytes = b.peak_memory_bytes = 50e9;
  a.layout.ep = 16;  // 16 GPUs: beyond an 8-GPU domain
  a.layout.etp = 1;
  b.layout.ep = 8;
  b.layout.etp = 1;
  b.layout.tp = 2;  // a larger tuple, so only the EP rule can put b first
  EXPECT_TRUE(RanksBefore(b, a, Objective::kThroughput, 8));
  EXPECT_FALSE(RanksBefore(a, b, Objective::kThroughput, 8));
}

// Issue 10: 126 layers divide only by pp 1 and 2 of a power-of-two world; Megatron's
// account-for splits ((126 + 2) / pp) open pp 4 to 64, and a 405B model on 80 GB GPUs needs them.
TEST(Planner, Llama405BOn16384H100ConsidersDeepPipelines) {
  PlanRequest r = Request("llama-3.1-405b", "H100", 16384, Training{8192, 2048, Precision::kBf16});
  const PlanResult res = Plan(r);
  ExpectSound(r, res);
  const Layout& w = res.ranked.front().layout;
  EXPECT_GT(w.pp, 2);
  EXPECT_FALSE(w.pp_layout.empty());
  int layers = 0;
  for (const StageEstimate& st : res.ranked.front().stages) layers += st.dense_layers + st.moe_layers;
  EXPECT_EQ(layers, 126);
  // Pinned to pp 8 the search finds the layout of the split test: 15, 16 x 6, 15 layers.
  r.pp = 8;
  r.vp = 1;
  const PlanResult p8 = Plan(r);
  ExpectSound(r, p8);
  EXPECT_EQ(p8.ranked.front().layout.pp_layout, (std::vector<int>{15, 16, 16, 16, 16, 16, 16, 15}));
  EXPECT_EQ(p8.ranked.front().stages.front().dense_layers, 15);
  EXPECT_EQ(p8.ranked.front().stages[1].dense_layers, 16);
}

// DeepSeek-V3's 61 layers take first/last stage counts: pp > 1 is searched (it was pp 1 only).
TEST(Planner, DeepSeekV3GetsPipelineStages) {
  PlanRequest r = Request("deepseek-v3", "H100", 2048, Training{4096, 2048, Precision::kBf16});
  r.pp = 4;
  r.vp = 1;
  const PlanResult res = Plan(r);
  ExpectSound(r, res);
  const std::vector<int>& s = res.ranked.front().layout.pp_layout;
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[1], 16);
  EXPECT_EQ(s[2], 16);
  EXPECT_EQ(s[0] + s[3], 29);
}

// The schedule is searched: with everything else pinned, 1F1B and ZB-H1 of the same layout are
// both ranked; ZB-H1's bubble is smaller (Qi et al. 2024 Sec. 2.1: a third of 1F1B's with equal
// F, B, W) and it keeps more activation memory on the later stages (pending W passes).
TEST(Planner, ScheduleIsSearched) {
  PlanRequest r = Request("llama-3.1-70b", "H100", 64, Training{4096, 64, Precision::kBf16});
  r.tp = 8;
  r.pp = 8;
  r.vp = 1;
  r.zero = 1;
  r.mbs = 1;
  r.recompute = Recompute::kFull;
  const PlanResult res = Plan(r);
  ExpectSound(r, res);
  ASSERT_EQ(res.ranked.size(), 2u);
  const Estimate &a = res.ranked[0], &b = res.ranked[1];
  EXPECT_EQ(a.layout.pipeline_schedule(), ScheduleKind::kZbH1);
  EXPECT_EQ(b.layout.pipeline_schedule(), ScheduleKind::k1F1B);
  EXPECT_LT(a.time.bubble_s, b.time.bubble_s);
  // Stage 0 holds pp micro-batches in both (its W follows its B); stage 7 one in flight and 7
  // pending W under ZB-H1 (schedule.cc ZbH1: rank r holds back r weight gradients).
  EXPECT_DOUBLE_EQ(a.stages[0].memory.activations, b.stages[0].memory.activations);
  EXPECT_GT(a.stages[7].memory.activations, b.stages[7].memory.activations);
}

// The bounds never change the ranking: the same top 10, layout for layout and step for step, as
// estimating every valid layout.
TEST(Planner, PruningKeepsTheRanking) {
  for (const char* model : {"llama-3.1-8b", "mixtral-8x7b"}) {
    SCOPED_TRACE(model);
    PlanRequest r = Request(model, "H100", 32, Training{4096, 128, Precision::kBf16});
    const PlanResult pruned = Plan(r);
    r.prune = false;
    const PlanResult full = Plan(r);
    EXPECT_LT(pruned.estimated, full.estimated);
    EXPECT_EQ(full.pruned_by_bound, 0);
    ASSERT_EQ(pruned.ranked.size(), full.ranked.size());
    for (size_t i = 0; i < full.ranked.size(); ++i) {
      EXPECT_EQ(EstimateToJson(pruned.ranked[i]).dump(), EstimateToJson(full.ranked[i]).dump()) << i;
    }
    EXPECT_EQ(pruned.explanation, full.explanation);
  }
}

TEST(Planner, NothingFitsIsAnInputError) {
  PlanRequest r = Request("llama-3.1-405b", "A100-40GB", 8);
  EXPECT_THROW(Plan(r), InputError);
}

TEST(Planner, BadPinsAreInputErrors) {
  PlanRequest r = Request("llama-3.1-8b", "H100", 8);
  r.zero = 4;
  EXPECT_THROW(Plan(r), InputError);
  r.zero.reset();
  r.headroom = 1.5;
  EXPECT_THROW(Plan(r), InputError);
}

// Issue 10: GPT-3 175B on 4,096 A100-80GB, seq 2048, global batch 1536. The old search ranked
// first tp 2, pp 4, vp 24, ZeRO-3 with 5.15 s of DP traffic on the network inside a 4.19 s step.
// Now no ranked layout's network is busier than its step; the first keeps TP in the node, no
// ZeRO-3, and Calculon's optimum (tp 8, pp 4, dp 128, v 24, mbs 3; 3.83 s under Calculon's
// model) is within 5% of it under this one (docs/validation.md records both).
TEST(LinkLoads, Gpt3SearchRanksAPhysicalLayoutFirst) {
  const ModelSpec m = LoadModel("gpt3-175b");
  const ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("A100-80GB", 4096);
  PlanRequest req;
  req.model = m;
  req.cluster = c;
  req.training = {2048, 1536, Precision::kBf16};
  const PlanResult plan = Plan(req);
  ASSERT_FALSE(plan.ranked.empty());
  for (const Estimate& e : plan.ranked)
    for (const LinkLoad& ld : e.links) EXPECT_LE(ld.busy_s, e.step_time_s * (1 + 1e-12)) << ld.link;
  const Estimate& best = plan.ranked[0];
  EXPECT_EQ(best.layout.tp, 8);
  EXPECT_NE(best.layout.zero, 3);
  Layout calculon;
  calculon.tp = 8;
  calculon.pp = 4;
  calculon.vp = 24;
  calculon.mbs = 3;
  calculon.zero = best.layout.zero;
  const Estimate theirs = EstimateStep(m, c, req.training, calculon);
  EXPECT_EQ(theirs.layout.dp, 128);
  EXPECT_GE(theirs.step_time_s, best.step_time_s);
  EXPECT_LE(theirs.step_time_s, 1.05 * best.step_time_s);
}

// Issue 32: a 2.5 ms gap between #1 and #2 was split into "902%" and "-802% of the gap". A gap
// under 5% of the step is said to be within the model's noise, without percentages of it; a
// larger one keeps them.
TEST(ExplainPlan, GapWithinNoiseHasNoPercentages) {
  const PlanRequest r = Request("llama-3.1-8b", "H100", 8, Training{4096, 64, Precision::kBf16});
  const PlanResult res = Plan(r);
  ASSERT_GE(res.ranked.size(), 1u);
  const Estimate a = res.ranked.front();
  auto explain_with = [&](double extra_s) {
    Estimate b = a;
    b.time.optimizer_s += 2 * extra_s;  // one term up, another down: percentages over 100%
    b.time.dp_s = std::max(0.0, b.time.dp_s - extra_s);
    b.step_time_s += extra_s;
    b.tokens_per_s_per_gpu = a.tokens_per_s_per_gpu * a.step_time_s / b.step_time_s;
    std::string all;
    for (const std::string& line : ExplainPlan({a, b}, r, res.memory_limit_bytes, std::nullopt, 0)) all += line + "\n";
    return all;
  };
  const std::string close = explain_with(0.01 * a.step_time_s);
  EXPECT_NE(close.find("within the model's noise (under 5%): #1 and #2 are as good as equal"), std::string::npos)
      << close;
  EXPECT_EQ(close.find("of the gap"), std::string::npos) << close;
  const std::string far = explain_with(0.2 * a.step_time_s);
  EXPECT_NE(far.find("Where the gap comes from"), std::string::npos) << far;
  EXPECT_NE(far.find("of the gap"), std::string::npos) << far;
}

// Issue 32: the notes said "split 0 excluded" and "schedule 2 excluded" (enum numbers). The
// dimensions that are names print their names.
TEST(Planner, ExclusionNotesNameEnumValues) {
  const PlanRequest r = Request("llama-3.1-70b", "H100", 64, Training{8192, 256, Precision::kBf16});
  const PlanResult res = Plan(r);
  bool named = false;
  for (const auto& [rule, note] : res.rules) {
    for (const char* dim : {"split ", "schedule ", "recompute ", "precision "}) {
      if (note.rfind(dim, 0) != 0) continue;
      const char next = note[std::string(dim).size()];
      EXPECT_FALSE(next >= '0' && next <= '9') << rule << ": " << note;
      named = true;
    }
  }
  EXPECT_TRUE(named) << "no note about an enum dimension to check";
}

}  // namespace
}  // namespace paratune
