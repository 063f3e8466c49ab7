// The plan's JSON: both MFUs per ranked layout (one BF16 denominator for every row, and the
// row's own precision), and the time to train per row and for the winner.
#include "plan/plan_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "hardware/hardware_catalog.h"
#include "model/catalog.h"
#include "scenario/default_scenario.h"
#include "util/error.h"
#include "util/test_util.h"

namespace paratune {
namespace {

TEST(PlanJson, EveryRowHasBothMfusAndItsTimeToTrain) {
  PlanRequest r;
  r.model = LoadModel("llama-3.1-8b");
  r.cluster = HardwareCatalog::BuiltIn().Cluster("H100", 16);
  r.training = Training{4096, 64, Precision::kBf16};
  r.switches = DefaultLayout();
  r.any_precision = true;
  r.top = 10000;
  const PlanResult res = Plan(r);
  const TrainingBudget budget{15e12, 2.0};
  const nlohmann::json j = PlanToJson(res, r, budget);
  const nlohmann::json& ranked = j.at("ranked");
  ASSERT_EQ(ranked.size(), res.ranked.size());
  int fp8 = 0, bf16 = 0;
  for (const nlohmann::json& row : ranked) {
    SCOPED_TRACE(row.at("rank").get<int>());
    const double own = row.at("mfu").get<double>(), bf = row.at("mfu_vs_bf16_peak").get<double>();
    const std::string precision = row.at("layout").at("precision");
    // H100: FP8 1979 over BF16 989.5 TFLOP/s dense = 2; BF16 rows have one MFU.
    if (precision == "fp8") {
      ++fp8;
      EXPECT_DOUBLE_EQ(bf / own, 2.0);
    } else if (precision == "bf16") {
      ++bf16;
      EXPECT_EQ(bf, own);
    }
    // Days = tokens / (tokens/s per GPU * 16 GPUs) / 86400; GPU-hours = days * 24 * 16.
    const nlohmann::json& t = row.at("time_to_train");
    const double days = 15e12 / (row.at("tokens_per_s_per_gpu").get<double>() * 16) / 86400;
    EXPECT_DOUBLE_EQ(t.at("days").get<double>(), days);
    EXPECT_DOUBLE_EQ(t.at("gpu_hours").get<double>(), days * 24 * 16);
    EXPECT_DOUBLE_EQ(t.at("cost_usd").get<double>(), days * 24 * 16 * 2.0);
  }
  EXPECT_GT(fp8, 0);
  EXPECT_GT(bf16, 0);
  EXPECT_EQ(j.at("winner").at("time_to_train"), ranked.at(0).at("time_to_train"));
  EXPECT_EQ(j.at("winner").at("throughput").at("mfu_vs_bf16_peak"), ranked.at(0).at("mfu_vs_bf16_peak"));

  const nlohmann::json without = PlanToJson(res, r);
  EXPECT_TRUE(without.at("ranked").at(0).at("time_to_train").is_null());
  EXPECT_TRUE(without.at("winner").at("time_to_train").is_null());
}

PlanRequest SmallRequest() {
  PlanRequest r;
  r.model = LoadModel("llama-3.1-8b");
  r.cluster = HardwareCatalog::BuiltIn().Cluster("H100", 16);
  r.training = Training{4096, 64, Precision::kBf16};
  r.switches = DefaultLayout();
  r.top = 4;
  r.tp = 2;
  r.max_pp = 4;
  return r;
}

// Issue 38: paratune.plan/1 is written and read from one field list: what PlanFromJson reads
// back writes the same document again but for the parts written only (the budget is the
// request's: given back, the winner's time to train is the same too), with and without a sweep.
TEST(PlanJson, ReadsBackWhatItWrites) {
  const PlanRequest r = SmallRequest();
  const PlanResult res = Plan(r);
  const TrainingBudget budget{15e12, 2.0};
  for (const std::optional<SweepResult>& sweep :
       {std::optional<SweepResult>(), std::optional(Sweep(r, SweepKnob::kPp))}) {
    const nlohmann::json written = PlanToJson(res, r, budget, sweep);
    PlanDocument back = PlanFromJson(written, "p.json");
    EXPECT_EQ(back.result.ranked.size(), res.ranked.size());
    EXPECT_EQ(back.winner.stages.size(), res.ranked.front().stages.size());
    EXPECT_EQ(back.sweep.has_value(), sweep.has_value());
    back.budget = budget;
    // Written only: the request's pins and bounds, and each row's time to train (from the row's
    // estimate, of which the row keeps the figures the report and registry read).
    auto without_written_only = [](nlohmann::json j) {
      j["search"].erase("pinned");
      j["search"].erase("bounds");
      for (nlohmann::json& row : j["ranked"]) row.erase("time_to_train");
      return j;
    };
    EXPECT_TRUE(without_written_only(PlanToJson(back)) == without_written_only(written));
    EXPECT_EQ(written.at("search").at("pinned"), nlohmann::json({{"tp", 2}}));
    if (sweep) {
      EXPECT_TRUE(written.contains("sweep"));
      EXPECT_EQ(back.sweep->points.size(), sweep->points.size());
    } else {
      EXPECT_FALSE(written.contains("sweep"));  // absent, not null, as before the list was shared
    }
  }
}

TEST(PlanJson, BrokenDocumentsNameTheFileAndField) {
  const PlanRequest r = SmallRequest();
  const nlohmann::json good = PlanToJson(Plan(r), r);
  nlohmann::json doc = good;
  doc["ranked"][1].erase("tokens_per_s_per_gpu");
  EXPECT_EQ(InputErrorOf([&] { PlanFromJson(doc, "p.json"); }),
            "p.json: field 'ranked[1].tokens_per_s_per_gpu' is missing");
  doc = good;
  doc["search"]["objective"] = "fame";
  EXPECT_CONTAINS(InputErrorOf([&] { PlanFromJson(doc, "p.json"); }), "p.json: field 'search.objective'");
  doc = good;
  doc.erase("winner");
  EXPECT_EQ(InputErrorOf([&] { PlanFromJson(doc, "p.json"); }), "p.json: field 'winner' is missing");
  doc = good;
  doc["sweep"] = {{"knob", "tp"}, {"points", {{{"value", "2"}, {"fits", "yes"}}}}};
  EXPECT_EQ(InputErrorOf([&] { PlanFromJson(doc, "p.json"); }),
            "p.json: field 'sweep.points[0].fits' is not true or false");
}

}  // namespace
}  // namespace paratune
