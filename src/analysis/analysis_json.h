// `paratune analyze --json`: the TraceAnalysis as JSON, schema "paratune.analyze/1", documented
// in docs/json.md, and read back into a TraceAnalysis, both from one field list per struct
// (analysis_json.cc, util/json_two_way.h), so that a run analysed once (perhaps on another
// machine, from traces too large to move) can be diagnosed, reported and recorded without its
// traces. Event-level data (RankTrace, analysed_events) is not in the document and stays empty.
// Its "prediction" member is null here and written by compare/analyze_document.h when a model
// was given; the link ceilings (link_ceiling, the collectives' ceiling_*) are null until
// diagnose/link_ceiling.h FillCollectiveCeilings sets them for a GPU. Times in seconds, shares in
// percent (named *_pct), bandwidths in bytes/s; NaN (no communication) is null.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "analysis/trace_analysis.h"

namespace paratune {

inline constexpr const char* kAnalyzeSchema = "paratune.analyze/1";

nlohmann::json AnalysisJson(const TraceAnalysis& a);

// Throw InputError naming the file and the field of a missing or mistyped member.
TraceAnalysis AnalysisFromJson(const nlohmann::json& doc, const std::string& where);
TraceAnalysis ParseAnalysisJson(std::string_view text, const std::string& where);
TraceAnalysis ReadAnalysisJson(const std::string& path);  // gzip or plain, at most 1 GiB

}  // namespace paratune
