// The frame every chart file shares (chart.h, "DOM contract"): the <figure class="chart"> with
// its <svg role="img"> (title and desc first, so screen readers announce them), then the
// <figcaption> holding the caption and, in <details>, the tables of the chart's numbers.
#pragma once

#include <string>
#include <vector>

#include "report/axis.h"
#include "report/chart.h"
#include "report/data_table.h"
#include "report/svg.h"

namespace paratune {

// Throws InputError when the id is empty or not [a-z0-9-], or the size is outside 120..20000 px.
void CheckSpec(const ChartSpec& spec);

// <figure class="chart" id data-chart=KIND><svg viewBox role="img" aria-labelledby
// aria-describedby><title><desc>, at `height` px (charts that grow with their rows pass more
// than spec.height). `description` replaces an empty spec.description.
void BeginFigure(SvgWriter& w, const ChartSpec& spec, const std::string& kind, double height,
                 const std::string& description);
// </svg><figcaption>TITLE<details><summary>Data</summary>TABLES</details></figcaption></figure>.
void EndFigure(SvgWriter& w, const ChartSpec& spec, const std::vector<DataTable>& tables);

// "no data", centred in the plot area (an empty chart still draws its axes).
void DrawNoData(SvgWriter& w, const PlotArea& a);

// <line class="reference" data-value data-label> across the plot at `value`, with its label.
void DrawReferenceLine(SvgWriter& w, const PlotArea& a, const Scale& y, double value, const std::string& label,
                       const std::string& unit);

// A column heading with its unit: "step time (s)".
std::string WithUnit(const std::string& name, const std::string& unit);

// The header of a bar chart's data table: the category column, then one column per series.
DataTable BarTableHeader(const BarChartData& d);

// The table of a chart's reference line (e.g. the HBM limit): its label and value.
DataTable ReferenceTable(const std::string& label, double value, const std::string& unit);

}  // namespace paratune
