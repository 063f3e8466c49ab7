#include "compare/analyze_document.h"

#include <nlohmann/json.hpp>

#include "analysis/analysis_json.h"
#include "util/error.h"
#include "util/json_fields.h"

namespace paratune {

nlohmann::json AnalyzeDocumentJson(const AnalyzeDocument& d) {
  nlohmann::json j = AnalysisJson(d.analysis);
  if (d.prediction) j["prediction"] = PredictionJson(*d.prediction);
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
  return d;
}

}  // namespace paratune
