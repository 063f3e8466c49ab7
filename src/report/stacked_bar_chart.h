// Stacked bar chart (chart.h): one stack per category (e.g. the step-time terms of a layout, or
// memory by kind per pipeline stage against the HBM line); series are the stacked parts.
#pragma once

#include <string>

#include "report/chart.h"

namespace paratune {

// Throws InputError as RenderBarChart; negative parts are rejected (a stack adds up).
std::string RenderStackedBarChart(const BarChartData& data);

}  // namespace paratune
