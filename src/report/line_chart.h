// Line chart (chart.h): several series over a shared x axis, vertical markers and shaded bands,
// downsampled to LineChartData::max_points per series (min and max of each pixel bucket).
#pragma once

#include <string>

#include "report/chart.h"

namespace paratune {

// Throws InputError for a non-finite value, x and y of different lengths, or a non-positive
// value on a log axis. An empty chart (no points) draws its axes and says "no data".
std::string RenderLineChart(const LineChartData& data);

}  // namespace paratune
