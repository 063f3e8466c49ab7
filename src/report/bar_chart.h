// Grouped bar chart (chart.h): one group per category, one bar per series, optional reference
// line, optional log y axis; the figure, its text alternative and its data table.
#pragma once

#include <string>

#include "report/chart.h"

namespace paratune {

// Throws InputError for a value that is not finite, a series whose length is not the number of
// categories, or a negative value on a log axis.
std::string RenderBarChart(const BarChartData& data);

}  // namespace paratune
