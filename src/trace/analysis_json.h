// `paratune analyze --json`: the TraceAnalysis (and, when a layout was given, the prediction
// beside it) as JSON, schema "paratune.analyze/1", documented in docs/json.md. Times in seconds,
// shares in percent (named *_pct), bandwidths in bytes/s; NaN (no communication) is null.
#pragma once

#include <nlohmann/json.hpp>

#include "trace/prediction.h"
#include "trace/trace_analysis.h"

namespace paratune {

nlohmann::json AnalysisJson(const TraceAnalysis& a, const PredictionComparison* prediction);

}  // namespace paratune
