// Gantt chart (chart.h): one row per pipeline stage (or cluster node), spans coloured by
// category, aggregated beyond GanttChartData::max_spans so a large timeline stays small.
#pragma once

#include <string>

#include "report/chart.h"

namespace paratune {

// Throws InputError for a span with a non-finite or reversed time, or a row out of range.
std::string RenderGanttChart(const GanttChartData& data);

}  // namespace paratune
