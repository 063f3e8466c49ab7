#include "compare/analyze_document.h"

#include <nlohmann/json.hpp>

#include "analysis/analysis_json.h"
#include "analysis/trace_diff_json.h"
#include "util/error.h"
#include "util/json_fields.h"

namespace paratune {

nlohmann::json AnalyzeDocumentJson(const AnalyzeDocument& d) {
  nlohmann::json j = AnalysisJson(d.analysis);
  if (d.prediction) j["prediction"] = PredictionJson(*d.prediction);
  j["trace_diff"] = d.diff ? TraceDiffJson(*d.diff) : nlohmann::json(nullptr);
  return j;
}

AnalyzeDocument AnalyzeDocumentFromJson(const nlohmann::json& doc, const std::string& where) {
  AnalyzeDocument d;
  d.analysis = AnalysisFromJson(doc, where);
  const JsonFields f(doc, where);
  const nlohmann::json* p = f.Find("prediction");
  if (p && !p->is_null()) {
    if (!p->is_object()) f.Fail("prediction", "is not an object or null");
    d.prediction = PredictionFromJson(JsonView(f, *p, "prediction"));
  }
  const nlohmann::json* diff = f.Find("trace_diff");  // absent before 2026-12-07
  if (diff && !diff->is_null()) {
    if (!diff->is_object()) f.Fail("trace_diff", "is not an object or null");
    d.diff = TraceDiffFromJson(JsonView(f, *diff, "trace_diff"));
  }
  return d;
}

}  // namespace paratune
