// Grouped bar chart (bar_chart.h). Layout: the plot width is split into one band per category;
// 80% of a band holds the category's bars side by side (10% padding each side), one per series.
#include "report/bar_chart.h"

#include <algorithm>
#include <cmath>

#include "report/figure.h"
#include "report/scale.h"
#include "util/error.h"

namespace paratune {
namespace {

void CheckBars(const BarChartData& d) {
  CheckSpec(d.spec);
  for (const BarSeries& s : d.series) {
    if (s.values.size() != d.categories.size()) {
      throw InputError("chart '" + d.spec.id + "': series '" + s.name + "' has " + std::to_string(s.values.size()) +
                       " values for " + std::to_string(d.categories.size()) + " categories");
    }
    CheckFinite(s.values, d.spec.id, s.name);
    if (d.log_y) {
      for (size_t i = 0; i < s.values.size(); ++i) {
        if (!(s.values[i] > 0)) {
          throw InputError("chart '" + d.spec.id + "': series '" + s.name + "' has " + SvgValue(s.values[i]) +
                           " at index " + std::to_string(i) + " on a log axis (values must be above 0)");
        }
      }
    }
  }
  if (d.reference) {
    CheckFinite({*d.reference}, d.spec.id, d.reference_label.empty() ? "reference" : d.reference_label);
    if (d.log_y && !(*d.reference > 0)) {
      throw InputError("chart '" + d.spec.id + "': reference " + SvgValue(*d.reference) + " on a log axis");
    }
  }
}

std::vector<std::string> Names(const std::vector<BarSeries>& series) {
  std::vector<std::string> names;
  for (const BarSeries& s : series) names.push_back(s.name);
  return names;
}

// The range of the values and the reference line ([0, 1], or [0, 10] on a log axis, when there
// are none).
std::pair<double, double> BarValueRange(const BarChartData& d) {
  double lo = 0, hi = 0;
  bool any = false;
  for (const BarSeries& s : d.series) {
    for (double v : s.values) {
      lo = any ? std::min(lo, v) : v;
      hi = any ? std::max(hi, v) : v;
      any = true;
    }
  }
  if (d.reference) {
    lo = any ? std::min(lo, *d.reference) : *d.reference;
    hi = any ? std::max(hi, *d.reference) : *d.reference;
    any = true;
  }
  if (!any) {
    lo = 0;
    hi = d.log_y ? 10 : 1;
  }
  return {lo, hi};
}

// The chart's text description: its size and largest bar.
std::string BarDescription(const BarChartData& d) {
  const size_t n = d.categories.size(), m = d.series.size();
  const bool empty = n == 0 || m == 0;
  std::string description = "Bar chart of " + std::to_string(m) + " series over " + std::to_string(n) + " categories";
  if (!empty) {
    size_t bi = 0, bj = 0;
    for (size_t j = 0; j < m; ++j)
      for (size_t i = 0; i < n; ++i)
        if (d.series[j].values[i] > d.series[bj].values[bi]) bi = i, bj = j;
    description += "; the largest is " + d.series[bj].name + " of " + d.categories[bi] + ", " +
                   FormatValue(d.series[bj].values[bi], d.spec.y_unit);
  }
  description += ".";
  return description;
}

// The chart's data as a table: one row per category, one column per series.
DataTable BarDataTable(const BarChartData& d) {
  DataTable table = BarTableHeader(d);
  for (size_t i = 0; i < d.categories.size(); ++i) {
    std::vector<std::string> row{d.categories[i]};
    for (const BarSeries& s : d.series) row.push_back(SvgValue(s.values[i]));
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace

std::string RenderBarChart(const BarChartData& d) {
  CheckBars(d);
  const size_t n = d.categories.size(), m = d.series.size();
  const bool empty = n == 0 || m == 0;
  PlotArea a;
  a.width = d.spec.width;
  a.height = d.spec.height;

  const auto [lo, hi] = BarValueRange(d);
  const Ticks t = d.log_y ? LogTicks(std::max(lo, 1e-300), hi) : AxisTicks(lo, hi, d.spec.y_unit, 5, true);
  a.left = YAxisMargin(t, d.spec.y_unit);
  a.top += LegendHeight(a, Names(d.series));
  const Scale y = d.log_y ? Scale::Log(t.lo, t.hi, a.y0(), a.y1()) : Scale::Linear(t.lo, t.hi, a.y0(), a.y1());

  const std::string description = BarDescription(d);

  SvgWriter w;
  BeginFigure(w, d.spec, "bar", d.spec.height, description);
  DrawYAxis(w, a, y, t, d.spec.y_label, d.spec.y_unit);
  const double band = (a.x1() - a.x0()) / static_cast<double>(std::max<size_t>(n, 1));
  const double bar = m == 0 ? 0 : band * 0.8 / static_cast<double>(m);
  std::vector<double> centres;
  for (size_t i = 0; i < n; ++i) centres.push_back(a.x0() + band * (static_cast<double>(i) + 0.5));
  DrawCategoryAxis(w, a, d.categories, centres, d.spec.x_label);
  DrawLegend(w, a, Names(d.series));
  if (empty) DrawNoData(w, a);
  // The base of a bar: 0 on a linear axis, the bottom of the plot on a log one.
  const double base = d.log_y ? a.y0() : y(0);
  w.Open("g", {{"class", "bars"}});
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < m; ++j) {
      const double v = d.series[j].values[i];
      const double top = std::min(y(v), base), bottom = std::max(y(v), base);
      w.Open("rect",
             {{"class", "bar"},
              {"data-series", d.series[j].name},
              {"data-category", d.categories[i]},
              {"data-value", SvgValue(v)},
              {"x", SvgNumber(a.x0() + band * (static_cast<double>(i) + 0.1) + bar * static_cast<double>(j), 2)},
              {"y", SvgNumber(top, 2)},
              {"width", SvgNumber(bar, 2)},
              {"height", SvgNumber(bottom - top, 2)},
              {"fill", SeriesColour(j)}});
      w.Text("title", d.series[j].name + ", " + d.categories[i] + ": " + FormatValue(v, d.spec.y_unit));
      w.Close("rect");
    }
  }
  w.Close("g");
  if (d.reference) DrawReferenceLine(w, a, y, *d.reference, d.reference_label, d.spec.y_unit);

  std::vector<DataTable> tables{BarDataTable(d)};
  if (d.reference) tables.push_back(ReferenceTable(d.reference_label, *d.reference, d.spec.y_unit));
  EndFigure(w, d.spec, tables);
  return w.Take();
}

}  // namespace paratune
