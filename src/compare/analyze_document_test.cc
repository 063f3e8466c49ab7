#include "compare/analyze_document.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/analysis_json.h"
#include "util/error.h"

namespace paratune {
namespace {

PredictionFigures Figures() {
  PredictionFigures p;
  p.measured_from_steps = true;
  p.measured_step_time_s = 2.0, p.predicted_step_time_s = 1.8, p.step_time_error = -0.1;
  p.measured_mfu = 0.41, p.predicted_mfu = 0.455;
  p.measured = {60, 30, 10}, p.predicted = {70, 25, 5};
  return p;
}

// The document with a prediction, read back and written again, is the same document; without
// one its prediction is null and reads as none.
TEST(AnalyzeDocument, RoundTripsWithAndWithoutAPrediction) {
  AnalyzeDocument d;
  d.analysis.events = 5;
  d.prediction = Figures();
  const nlohmann::json j = AnalyzeDocumentJson(d);
  EXPECT_EQ(j.at("prediction").at("predicted").at("compute_pct"), 70);
  EXPECT_TRUE(j.at("prediction").at("mfu_warning").is_null());
  const AnalyzeDocument back = AnalyzeDocumentFromJson(j, "a.json");
  ASSERT_TRUE(back.prediction);
  EXPECT_EQ(back.prediction->predicted_mfu, 0.455);
  EXPECT_EQ(back.prediction->measured.idle_pct, 10);
  EXPECT_EQ(AnalyzeDocumentJson(back), j);
  d.prediction.reset();
  const nlohmann::json none = AnalyzeDocumentJson(d);
  EXPECT_TRUE(none.at("prediction").is_null());
  EXPECT_FALSE(AnalyzeDocumentFromJson(none, "a.json").prediction);
}

TEST(AnalyzeDocument, ABadPredictionNamesItsField) {
  AnalyzeDocument d;
  d.prediction = Figures();
  nlohmann::json j = AnalyzeDocumentJson(d);
  j["prediction"]["measured_mfu"] = "high";
  try {
    AnalyzeDocumentFromJson(j, "a.json");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "a.json: field 'prediction.measured_mfu' is not a number");
  }
  j["prediction"] = 3;
  EXPECT_THROW(AnalyzeDocumentFromJson(j, "a.json"), InputError);
}

}  // namespace
}  // namespace paratune
