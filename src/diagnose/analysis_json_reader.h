// Reads the JSON `paratune analyze --json` writes (schema paratune.analyze/1, docs/json.md) back
// into a TraceAnalysis, so that a run analysed once (perhaps on another machine, from traces too
// large to move) can be diagnosed without its traces. Restores the per-rank figures the rules use:
// temporal breakdown and overlap, kernel categories and top kernels, launch statistics,
// iterations with their data-loader time, step-time summary, collectives, and the stragglers.
// Event-level data (RankTrace) is not in the JSON and stays empty.
#pragma once

#include <string>
#include <string_view>

#include "analysis/trace_analysis.h"

namespace paratune {

// Throws InputError naming the file and the JSON path of a missing or mistyped field.
TraceAnalysis ParseAnalysisJson(std::string_view text, const std::string& where);
TraceAnalysis ReadAnalysisJson(const std::string& path);

}  // namespace paratune
