// `paratune analyze --json`: the TraceAnalysis as JSON, schema "paratune.analyze/1", documented
// in docs/json.md; its "prediction" member is null here and filled by compare/prediction_json.h
// when a layout was given; its "link_ceiling" member and the collectives' ceiling_* members are
// null here and filled by diagnose/link_ceiling.h AddCollectiveCeilings when a GPU was given. Times in seconds, shares
// in percent (named *_pct), bandwidths in bytes/s; NaN (no communication) is null.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "analysis/trace_analysis.h"

namespace paratune {

nlohmann::json AnalysisJson(const TraceAnalysis& a);

}  // namespace paratune
