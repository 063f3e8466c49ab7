// The human-readable text of a TraceAnalysis: per-rank GPU time, stragglers, one rank in detail
// (kernel types and categories, top kernels, collectives, idle time, launches, iterations) and,
// when a layout was given, the measured figures beside the cost model's.
#pragma once

#include <string>

#include "compare/prediction.h"
#include "analysis/trace_analysis.h"

namespace paratune::cli {

struct AnalyzeReportOptions {
  int detail_rank = -1;     // rank shown in detail; -1: the lowest
  double read_seconds = 0;  // wall time of reading, for the header
  const PredictionComparison* prediction = nullptr;
  std::string prediction_label;  // "llama3.1-8b on 8 x H100-SXM, tp 1 ..."
};

std::string FormatAnalysis(const TraceAnalysis& a, const AnalyzeReportOptions& o);

}  // namespace paratune::cli
