// `paratune analyze --trace-out`: a reduced Chrome trace of what the GPUs did, for Perfetto or
// chrome://tracing. One process per rank, one thread per CUDA stream holding the analysed GPU
// events (short kernel names; category, HTA type and full name in args), an "iterations" thread
// with each ProfilerStep's GPU span, and counter tracks with each iteration's compute,
// non-compute and idle shares and its step time. CPU operators, runtime calls and flows are
// left out, which is what makes it small. Times are µs from the earliest event of any rank.
#pragma once

#include <string>
#include <vector>

#include "analysis/trace_analysis.h"
#include "trace/trace_event.h"

namespace paratune {

std::string ReducedTraceJson(const std::vector<RankTrace>& ranks, const TraceAnalysis& a);

// Writes ReducedTraceJson atomically (temporary file, then rename); throws InputError.
void WriteReducedTrace(const std::vector<RankTrace>& ranks, const TraceAnalysis& a, const std::string& path);

}  // namespace paratune
