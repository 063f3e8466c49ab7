// The whole paratune.analyze/1 document, typed: the trace analysis and, when a model was given,
// the prediction beside it, and, when a second run or iteration range was given, the trace diff. `analyze --json`
// writes it; the report, the run registry and the Python module read it back with AnalyzeDocumentFromJson, never by
// field name.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "analysis/trace_analysis.h"
#include "analysis/trace_diff.h"
#include "compare/prediction_json.h"

namespace paratune {

struct AnalyzeDocument {
  TraceAnalysis analysis;
  std::optional<PredictionFigures> prediction;  // null in the document without a model
  std::optional<TraceDiff> diff;                // "trace_diff": null (or absent, older documents) without one
};

nlohmann::json AnalyzeDocumentJson(const AnalyzeDocument& d);
// Throws InputError naming the file and the field of a missing or mistyped member.
AnalyzeDocument AnalyzeDocumentFromJson(const nlohmann::json& doc, const std::string& where);

}  // namespace paratune
