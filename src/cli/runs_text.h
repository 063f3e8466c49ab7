// The readable tables of `paratune runs` (list, show, compare, baseline show).
#pragma once

#include <string>
#include <vector>

#include "runs/registry.h"

namespace paratune::cli {

// A figure in its unit for people: fractions as %, seconds, GiB, tokens/s; "-" when unknown.
std::string FormatFigure(const MetricInfo& m, double v);
// The table of `runs list`; where `total` is more than the runs shown, a last line says how many
// were left out ("50 of 82 runs; --limit to see more").
std::string FormatRunList(const std::vector<RunRecord>& runs, int64_t total);
std::string FormatRunShow(const RunRecord& run);
std::string FormatComparison(const Comparison& c);
std::string FormatBaselines(const std::vector<Baseline>& b);

}  // namespace paratune::cli
