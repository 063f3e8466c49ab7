#include "validate/scenario_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "hardware/hardware_catalog.h"
#include "model/catalog.h"
#include "step/estimate.h"
#include "util/file.h"
#include "util/test_util.h"
#include "validate/published_runs.h"

namespace paratune {
namespace {

// JSON text and back, as the run registry stores it.
Scenario RoundTrip(const Scenario& s) { return ScenarioFromJsonText(ScenarioToJson(s).dump(), "test.json"); }

void ExpectSameEstimate(const Scenario& a, const Scenario& b, const std::string& what) {
  EXPECT_EQ(ModelDifferences(a.model, b.model), std::vector<std::string>{}) << what;
  EXPECT_TRUE(a.model == b.model) << what;
  EXPECT_EQ(ScenarioToJson(a), ScenarioToJson(b)) << what;
  const Estimate ea = EstimateStep(a.model, a.cluster, a.training, a.layout);
  const Estimate eb = EstimateStep(b.model, b.cluster, b.training, b.layout);
  // Exactly: every double travels as its shortest round-tripping decimal.
  EXPECT_EQ(ea.step_time_s, eb.step_time_s) << what;
  EXPECT_EQ(ea.tokens_per_s_per_gpu, eb.tokens_per_s_per_gpu) << what;
  EXPECT_EQ(ea.peak_memory_bytes, eb.peak_memory_bytes) << what;
}

TEST(ScenarioJson, DenseRoundTripIsExact) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  Scenario s{LoadModel("llama-3.1-70b"), hw.Cluster("H100-SXM", 32), Training{8192, 128, Precision::kFp8}, Layout{}};
  s.layout.tp = 4;
  s.layout.pp = 4;
  s.layout.vp = 5;
  s.layout.recompute = Recompute::kSelective;
  s.layout.overlap_tp_comm = true;
  s.layout.fused_cross_entropy = true;
  s.layout.pp_layout = {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};
  s.layout.schedule = ScheduleKind::kInterleaved;
  s.cluster.fabric.gpus_per_node = 4;  // a row's own node size (published_runs.cc does this)
  s.cluster.gpu.calibration.gemm_fp8 = 0.7123456789012345;
  const Scenario r = RoundTrip(s);
  ExpectSameEstimate(s, r, "dense");
  EXPECT_EQ(r.layout.pp_layout, s.layout.pp_layout);
  EXPECT_EQ(r.layout.schedule, s.layout.schedule);
  EXPECT_EQ(r.cluster.fabric.gpus_per_node, 4);
  EXPECT_EQ(r.cluster.gpu.calibration.gemm_fp8, 0.7123456789012345);
  EXPECT_EQ(r.cluster.gpu.generation, "hopper");
  EXPECT_EQ(r.training.precision, Precision::kFp8);
}

// PyTorch FSDP's FP32 shards travel: the estimate (its memory) is the same on the way back.
TEST(ScenarioJson, Fp32ShardsRoundTrip) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  Scenario s{LoadModel("llama-3.1-8b"), hw.Cluster("H100-SXM", 8), Training{4096, 64, Precision::kBf16}, Layout{}};
  s.layout.zero = 3;
  s.layout.fp32_shards = true;
  const Scenario r = RoundTrip(s);
  EXPECT_TRUE(r.layout.fp32_shards);
  ExpectSameEstimate(s, r, "fsdp");
  s.layout.fp32_shards = false;
  EXPECT_GT(EstimateStep(s.model, s.cluster, s.training, s.layout).peak_memory_bytes,
            EstimateStep(r.model, r.cluster, r.training, r.layout).peak_memory_bytes);
}

TEST(ScenarioJson, OptimizerStatesRoundTrip) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  Scenario s{LoadModel("llama-3.1-8b"), hw.Cluster("H100-SXM", 8), Training{4096, 64, Precision::kBf16}, Layout{}};
  s.layout.tp = 1;
  for (OptimizerStates o : {OptimizerStates::kFp32Remainders, OptimizerStates::kBf16}) {
    s.layout.optimizer_states = o;
    const Scenario r = RoundTrip(s);
    EXPECT_EQ(r.layout.optimizer_states, o);
    ExpectSameEstimate(s, r, OptimizerStatesName(o));
  }
}

TEST(ScenarioJson, MoeWithLatentAttentionRoundTripIsExact) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  Scenario s{LoadModel("deepseek-v2"), hw.Cluster("B200", 64), Training{4096, 256, Precision::kBf16}, Layout{}};
  ASSERT_EQ(s.model.attention, AttentionKind::kMla);
  ASSERT_NE(s.model.rope_scaling.kind, RopeScalingKind::kNone);
  s.layout.tp = 1;
  s.layout.pp = 4;
  s.layout.ep = 8;
  s.layout.recompute = Recompute::kFull;
  s.layout.expert_imbalance = 1.25;
  s.layout.overlap_ep_comm = true;
  const Scenario r = RoundTrip(s);
  ExpectSameEstimate(s, r, "moe");
  EXPECT_EQ(r.model.experts, s.model.experts);
  EXPECT_EQ(r.layout.schedule, std::nullopt);
  EXPECT_EQ(r.layout.expert_imbalance, 1.25);
}

// Every modelable row of the development file: the scenario that published_runs.cc mapped it to
// comes back with the same estimate.
TEST(ScenarioJson, DevelopmentRowsRoundTripExactly) {
  PARATUNE_SHARED_OR_SKIP(csv, "validation/published_runs_dev.csv");
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  int n = 0;
  for (const PublishedRun& run : ReadPublishedRuns(ReadFile(csv), csv, hw)) {
    if (!run.modelable) continue;
    const Scenario s{run.model, run.cluster, run.training, run.layout};
    try {
      EstimateStep(s.model, s.cluster, s.training, s.layout);
    } catch (const InputError&) {
      continue;  // a row whose layout the rules reject (validation lists it); nothing to compare
    }
    ExpectSameEstimate(s, RoundTrip(s), run.id);
    ++n;
  }
  EXPECT_GE(n, 150);
}

TEST(ScenarioJson, MalformedInputNamesTheField) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const Scenario s{LoadModel("llama-3.1-8b"), hw.Cluster("H100-SXM", 8), Training{}, Layout{}};
  const nlohmann::json good = ScenarioToJson(s);
  auto error = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = good;
    edit(j);
    return InputErrorOf([&] { ScenarioFromJson(j, "run.json"); });
  };
  EXPECT_EQ(error([](auto& j) { j["model"]["layers"] = "32"; }),
            "run.json: field 'model.layers' must be an integer from 0 to 9223372036854775807, got \"32\"");
  EXPECT_EQ(error([](auto& j) { j["layout"]["tp"] = -2; }),
            "run.json: field 'layout.tp' must be an integer from 0 to 2147483647, got -2");
  EXPECT_EQ(error([](auto& j) { j["layout"]["tp"] = 4294967296LL; }),
            "run.json: field 'layout.tp' must be an integer from 0 to 2147483647, got 4294967296");
  EXPECT_EQ(error([](auto& j) { j["cluster"]["gpu"]["calibration"]["hbm"] = -0.5; }),
            "run.json: field 'cluster.gpu.calibration.hbm' must be a non-negative number, got -0.5");
  EXPECT_EQ(error([](auto& j) { j["model"]["rope_scaling"]["kind"] = "ntk"; }),
            "run.json: field 'model.rope_scaling.kind': unknown name 'ntk' (expected default, linear, dynamic, yarn, "
            "longrope or llama3)");
  EXPECT_EQ(error([](auto& j) { j["layout"]["overlap_tp"] = true; }), "run.json: unknown field 'layout.overlap_tp'");
  EXPECT_EQ(error([](auto& j) { j["cluster"]["fabric"] = 3; }),
            "run.json: field 'cluster.fabric' must be an object, got 3");
  EXPECT_EQ(error([](auto& j) { j["layout"]["sp"] = 1; }), "run.json: field 'layout.sp' must be true or false, got 1");
  EXPECT_EQ(error([](auto& j) { j["schema"] = "paratune.scenario/0"; }),
            "run.json: field 'schema' must be \"paratune.scenario/1\", got \"paratune.scenario/0\"");
  EXPECT_EQ(error([](auto& j) { j["cluster"]["fabric"]["gpus_per_node"] = 0; }),
            "run.json: field 'cluster.fabric.gpus_per_node' must be positive, got 0");
  EXPECT_CONTAINS(error([](auto& j) { j["model"]["hidden"] = 0; }), "run.json: model");
  EXPECT_EQ(InputErrorOf([] { ScenarioFromJsonText("{\"schema\": ", "run.json"); }),
            "run.json: not valid JSON at byte 12");  // nlohmann counts from 1: the end of the text
  // A number beyond double (found by fuzz/scenario_json_fuzz.cc): one line, not an escaped exception.
  EXPECT_EQ(InputErrorOf([] { ScenarioFromJsonText("{\"cluster\": {\"gpus\": 9.9e999}}", "run.json"); }),
            "run.json: not valid JSON: number overflow parsing '9.9e999'");
  // A member left out keeps its default.
  nlohmann::json j = good;
  j["layout"].erase("zero");
  EXPECT_EQ(ScenarioFromJson(j, "run.json").layout.zero, Layout{}.zero);
}

}  // namespace
}  // namespace paratune
