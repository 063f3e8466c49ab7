// paratune.simulate/1 both ways (step/simulate_json.h): what SimulateToJson writes,
// SimulateFromJson reads back to the same document, its timeline included; a broken document or
// timeline event is one error naming the file and field.
#include "step/simulate_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "hardware/hardware_catalog.h"
#include "model/catalog.h"
#include "util/error.h"
#include "util/test_util.h"

namespace paratune {
namespace {

StepResult Step() {
  Layout l;
  l.tp = 2;
  l.pp = 4;
  l.vp = 2;
  ComposeOptions co;
  co.record_timeline = true;
  return ComposeStep(LoadModel("llama-3.1-8b"), HardwareCatalog::BuiltIn().Cluster("H100", 16), Training{}, l, {}, co);
}

TEST(SimulateJson, ReadsBackWhatItWrites) {
  const StepResult step = Step();
  const nlohmann::json written = SimulateToJson(SimulateDocumentOf(step, "t.json", false));
  const SimulateDocument back = SimulateFromJson(written, "s.json");
  EXPECT_FALSE(back.timeline);
  EXPECT_EQ(back.trace, "t.json");
  EXPECT_EQ(back.layout.vp, 2);
  ASSERT_EQ(back.stages.size(), 4u);
  EXPECT_EQ(back.stages[3].passes.index, 3);
  // idle_pct is derived from the breakdown's window, which the document does not hold.
  auto without_idle_pct = [](nlohmann::json j) {
    for (nlohmann::json& s : j["stages"]) s.erase("idle_pct");
    return j;
  };
  EXPECT_TRUE(without_idle_pct(SimulateToJson(back)) == without_idle_pct(written));
}

TEST(SimulateJson, TheTimelineReadsBackEventByEvent) {
  const StepResult step = Step();
  const Timeline& t = step.simulation.timeline;
  ASSERT_FALSE(t.events.empty());
  const SimulateDocument back = SimulateFromJson(SimulateToJson(SimulateDocumentOf(step, "", true)), "s.json");
  ASSERT_TRUE(back.timeline);
  EXPECT_EQ(back.timeline->ranks, 4);
  EXPECT_EQ(back.timeline->stream_names, t.stream_names);
  ASSERT_EQ(back.timeline->events.size(), t.events.size());
  for (size_t i = 0; i < t.events.size(); ++i) {
    const TimelineEvent &a = t.events[i], &b = back.timeline->events[i];
    EXPECT_EQ(b.rank, a.rank);
    EXPECT_EQ(b.stream, a.stream);
    EXPECT_EQ(b.phase, a.phase);
    EXPECT_EQ(b.micro_batch, a.micro_batch);
    EXPECT_EQ(b.start_s, a.start_s);
    EXPECT_DOUBLE_EQ(b.end_s(), a.end_s());
  }
}

TEST(SimulateJson, BrokenDocumentsNameTheFileAndField) {
  const nlohmann::json good = SimulateToJson(SimulateDocumentOf(Step(), "", true));
  nlohmann::json doc = good;
  doc["stages"][2].erase("idle_s");
  EXPECT_EQ(InputErrorOf([&] { SimulateFromJson(doc, "s.json"); }), "s.json: field 'stages[2].idle_s' is missing");
  doc = good;
  doc["timeline"]["events"][5] = {0, 0, "F", 1, 0.5};
  EXPECT_EQ(InputErrorOf([&] { SimulateFromJson(doc, "s.json"); }),
            "s.json: field 'timeline.events[5]' is not [stage, stream, phase, micro_batch, start_s, end_s]");
  doc = good;
  doc["timeline"]["events"][0][0] = 4;
  EXPECT_EQ(InputErrorOf([&] { SimulateFromJson(doc, "s.json"); }),
            "s.json: field 'timeline.events[0]' has a stage out of range");
  doc = good;
  doc["timeline"]["events"][0][2] = "Z";
  EXPECT_CONTAINS(InputErrorOf([&] { SimulateFromJson(doc, "s.json"); }), "s.json: field 'timeline.events[0]'");
  doc = good;
  doc["timeline"]["events"][0][5] = -1.0;
  EXPECT_EQ(InputErrorOf([&] { SimulateFromJson(doc, "s.json"); }),
            "s.json: field 'timeline.events[0]' does not end after it starts");
  doc = good;
  doc["timeline"]["stages"] = 1000000000;
  EXPECT_EQ(InputErrorOf([&] { SimulateFromJson(doc, "s.json"); }), "s.json: field 'timeline.stages' is out of range");
}

}  // namespace
}  // namespace paratune
