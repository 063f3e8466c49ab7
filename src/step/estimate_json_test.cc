// paratune.estimate/1 both ways (step/estimate_json.h): what EstimateToJson writes,
// EstimateFromJson reads back to the same document, for layouts that use every part of the
// schema (recomputation by module, MoE, interleaving, FP8, a stack); older documents read with
// the later fields at their defaults; a broken one is one error naming the file and field.
#include "step/estimate_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "hardware/hardware_catalog.h"
#include "model/catalog.h"
#include "util/error.h"
#include "util/file.h"
#include "util/test_util.h"

namespace paratune {
namespace {

Estimate EstimateOf(const std::string& model, const std::string& gpu, int gpus, Layout l, Training t = {}) {
  return EstimateStep(LoadModel(model), HardwareCatalog::BuiltIn().Cluster(gpu, gpus), t, l);
}

std::vector<Estimate> Estimates() {
  std::vector<Estimate> out;
  Layout dense;
  dense.tp = 8;
  dense.pp = 4;
  dense.vp = 2;
  dense.recompute = Recompute::kSelective;
  dense.recompute_modules = ParseRecomputeModules("core_attn,mlp", "test");
  out.push_back(EstimateOf("llama-3.1-70b", "H100", 64, dense));
  Layout moe;
  moe.tp = 1;
  moe.ep = 8;
  moe.recompute = Recompute::kFull;
  moe.stack.framework = Framework::kTorchtitan;
  Training fp8;
  fp8.precision = Precision::kFp8;
  out.push_back(EstimateOf("mixtral-8x7b", "B200", 8, moe, fp8));
  Layout plain;
  plain.tp = 2;
  plain.pp = 2;
  plain.zero = 3;
  out.push_back(EstimateOf("llama-3.1-8b", "H100", 16, plain));
  return out;
}

TEST(EstimateJson, ReadsBackWhatItWrites) {
  for (const Estimate& e : Estimates()) {
    const nlohmann::json written = EstimateToJson(e);
    const Estimate back = EstimateFromJson(written, "e.json");
    EXPECT_EQ(EstimateToJson(back), written) << e.model;
    EXPECT_EQ(back.layout.expert_tp(), e.layout.expert_tp());
    EXPECT_EQ(back.layout.recompute_modules, e.layout.recompute_modules);
    EXPECT_EQ(back.stages.size(), e.stages.size());
    EXPECT_EQ(back.step_time_s, e.step_time_s);
  }
}

// Issue 38: a step-time term is read back under its own key like it is written, from the one
// list of schema/step_time.h (distinct powers of two, so a lost or swapped term shows).
TEST(EstimateJson, ReadsEveryStepTermOfTheSchemaList) {
  Estimate e = Estimates().back();
  double v = 1;
  for (const StepTerm& t : kStepTerms) e.time.*t.value = (v /= 2);
  const Estimate back = EstimateFromJson(EstimateToJson(e), "e.json");
  for (const StepTerm& t : kStepTerms) EXPECT_EQ(back.time.*t.value, e.time.*t.value) << t.key;
}

// testdata/report/estimate.json was written before the layout's stack, kernels and precision
// switches joined the schema: it reads, with their defaults.
TEST(EstimateJson, OlderDocumentsReadWithTheLaterFieldsAtTheirDefaults) {
  const nlohmann::json doc = nlohmann::json::parse(ReadFile(TestDataPath("report/estimate.json")));
  ASSERT_FALSE(doc.at("layout").contains("attention_kernel"));
  const Estimate e = EstimateFromJson(doc, "estimate.json");
  EXPECT_EQ(e.model, "llama-3.1-70b");
  EXPECT_EQ(e.layout.tp, 8);
  EXPECT_EQ(e.layout.pp, 4);
  EXPECT_EQ(e.layout.attention_kernel, AttentionKernel::kFused);
  EXPECT_EQ(e.stages.size(), 4u);
  EXPECT_EQ(e.end_stage, 0);
  EXPECT_DOUBLE_EQ(e.capacity_bytes, 85.5e9);
}

TEST(EstimateJson, BrokenDocumentsNameTheFileAndField) {
  const nlohmann::json good = EstimateToJson(Estimates().back());
  nlohmann::json doc = good;
  doc["throughput"].erase("mfu");
  EXPECT_EQ(InputErrorOf([&] { EstimateFromJson(doc, "e.json"); }), "e.json: field 'throughput.mfu' is missing");
  doc = good;
  doc["layout"]["recompute"] = "sometimes";
  EXPECT_CONTAINS(InputErrorOf([&] { EstimateFromJson(doc, "e.json"); }), "e.json: field 'layout.recompute'");
  doc = good;
  doc["layout"]["recompute"] = "selective";
  doc["layout"]["recompute_modules"] = "core_attn,teeth";
  EXPECT_CONTAINS(InputErrorOf([&] { EstimateFromJson(doc, "e.json"); }), "e.json: field 'layout.recompute_modules'");
  doc = good;
  doc["stages"][1]["memory"]["activations_bytes"] = -1;
  EXPECT_CONTAINS(InputErrorOf([&] { EstimateFromJson(doc, "e.json"); }),
                  "e.json: field 'stages[1].memory.activations_bytes' is negative");
  doc = good;
  doc["schema"] = "paratune.plan/1";
  EXPECT_EQ(InputErrorOf([&] { EstimateFromJson(doc, "e.json"); }),
            "e.json: field 'schema' is 'paratune.plan/1', not paratune.estimate/1");
  EXPECT_THROW(EstimateFromJson(nlohmann::json::array(), "e.json"), InputError);
}

}  // namespace
}  // namespace paratune
