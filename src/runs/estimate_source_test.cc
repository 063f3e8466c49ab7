// paratune.estimate/1 into a run record (runs/estimate_source.cc). Issue 38: the step-time
// metrics come from schema/step_time.h, so a term added there is recorded with no edit here.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "runs/source_reader.h"
#include "schema/step_time.h"
#include "util/error.h"
#include "util/file.h"
#include "util/test_util.h"

namespace paratune {
namespace {

nlohmann::json EstimateDoc() { return nlohmann::json::parse(ReadFile(TestDataPath("report/estimate.json"))); }

// Each term a distinct power of two, so any lost or doubled term shows in the sums.
TEST(EstimateSource, EveryStepTermIsRecordedInTheMetricItNames) {
  nlohmann::json doc = EstimateDoc();
  std::map<Metric, double> expected;
  double v = 1;
  for (const StepTerm& t : kStepTerms) {
    doc["time"][t.key] = (v /= 2);
    const std::optional<Metric> m = MetricByName(t.registry_metric);
    ASSERT_TRUE(m) << t.key << " names " << t.registry_metric;
    expected[*m] += v;
  }
  RunRecord r;
  ReadEstimateJson(doc, "e.json", "", r);
  for (const auto& [m, want] : expected) EXPECT_DOUBLE_EQ(r[m].predicted, want) << InfoOf(m).name;
  // The registry's step terms add up to the step as the estimate's total does: every term that is
  // not a part of another lands in a metric the registry counts as a term, and parts do not.
  for (const StepTerm& t : kStepTerms) {
    EXPECT_EQ(InfoOf(*MetricByName(t.registry_metric)).step_term, t.part_of == nullptr) << t.key;
  }
}

// A term added after the schema's first version may be absent from older documents (it reads as
// 0); one of the first terms may not.
TEST(EstimateSource, OnlyLaterTermsMayBeAbsent) {
  for (const StepTerm& t : kStepTerms) {
    nlohmann::json doc = EstimateDoc();
    doc["time"].erase(t.key);
    RunRecord r;
    if (t.added) {
      EXPECT_NO_THROW(ReadEstimateJson(doc, "e.json", "", r)) << t.key;
    } else {
      EXPECT_THROW(ReadEstimateJson(doc, "e.json", "", r), InputError) << t.key;
    }
  }
}

}  // namespace
}  // namespace paratune
