// Stacked bar chart (stacked_bar_chart.h): one stack per category, 60% of its band wide, the
// series' parts stacked from 0 in series order (the first series at the bottom).
#include "report/stacked_bar_chart.h"

#include <algorithm>

#include "report/figure.h"
#include "report/scale.h"
#include "util/error.h"

namespace paratune {

// A total's label: 11 px text drawn 4 px above its bar.
constexpr double kTotalsRowPx = 16;

namespace {

// Throws InputError for a log axis, a series without one value per category, a value that is not
// finite or is negative, and a reference that is not finite.
void CheckStackedData(const BarChartData& d) {
  if (d.log_y) throw InputError("chart '" + d.spec.id + "': a stacked bar chart has no log axis (its parts add up)");
  const size_t n = d.categories.size();
  for (const BarSeries& s : d.series) {
    if (s.values.size() != n) {
      throw InputError("chart '" + d.spec.id + "': series '" + s.name + "' has " + std::to_string(s.values.size()) +
                       " values for " + std::to_string(n) + " categories");
    }
    CheckFinite(s.values, d.spec.id, s.name);
    for (size_t i = 0; i < n; ++i) {
      if (s.values[i] < 0) {
        throw InputError("chart '" + d.spec.id + "': series '" + s.name + "' has a negative part " +
                         SvgValue(s.values[i]) + " at index " + std::to_string(i) + " (a stack adds up)");
      }
    }
  }
  if (d.reference) CheckFinite({*d.reference}, d.spec.id, d.reference_label.empty() ? "reference" : d.reference_label);
}

// The figure's description: its categories and parts, the largest total and the reference.
std::string StackedDescription(const BarChartData& d, const std::vector<double>& totals) {
  const size_t n = d.categories.size(), m = d.series.size();
  std::string description =
      "Stacked bar chart of " + std::to_string(n) + " categories, each the sum of " + std::to_string(m) + " parts";
  if (n > 0 && m > 0) {
    const size_t big = static_cast<size_t>(std::max_element(totals.begin(), totals.end()) - totals.begin());
    description += "; the largest total is " + d.categories[big] + ", " + FormatValue(totals[big], d.spec.y_unit);
  }
  if (d.reference) {
    description += "; " + (d.reference_label.empty() ? std::string("reference") : d.reference_label) + " at " +
                   FormatValue(*d.reference, d.spec.y_unit);
  }
  description += ".";
  return description;
}

// The stacks, one per category band: each series' part as a rect, the total written above.
void DrawStacks(SvgWriter& w, const BarChartData& d, const PlotArea& a, const Scale& y, double band,
                const std::vector<double>& centres, const std::vector<double>& totals) {
  const size_t n = d.categories.size(), m = d.series.size();
  w.Open("g", {{"class", "bars"}});
  for (size_t i = 0; i < n; ++i) {
    double base = 0;
    for (size_t j = 0; j < m; ++j) {
      const double v = d.series[j].values[i];
      const double bottom = y(base), top = y(base + v);
      w.Open("rect", {{"class", "bar"},
                      {"data-series", d.series[j].name},
                      {"data-category", d.categories[i]},
                      {"data-value", SvgValue(v)},
                      {"x", SvgNumber(a.x0() + band * (static_cast<double>(i) + 0.2), 2)},
                      {"y", SvgNumber(top, 2)},
                      {"width", SvgNumber(band * 0.6, 2)},
                      {"height", SvgNumber(bottom - top, 2)},
                      {"fill", SeriesColour(j)}});
      w.Text("title", d.categories[i] + ", " + d.series[j].name + ": " + FormatValue(v, d.spec.y_unit));
      w.Close("rect");
      base += v;
    }
    if (m > 0) {
      w.Text("text", FormatValue(totals[i], d.spec.y_unit),
             {{"class", "total"},
              {"data-value", SvgValue(totals[i])},
              {"x", SvgNumber(centres[i], 1)},
              {"y", SvgNumber(y(totals[i]) - 4, 1)},
              {"text-anchor", "middle"}});
    }
  }
  w.Close("g");
}

// The data tables: the parts and total of each category, then the reference if any.
std::vector<DataTable> StackedTables(const BarChartData& d, const std::vector<double>& totals) {
  DataTable table = BarTableHeader(d);
  table.columns.push_back(WithUnit("total", d.spec.y_unit));
  table.numeric.push_back(true);
  for (size_t i = 0; i < d.categories.size(); ++i) {
    std::vector<std::string> row{d.categories[i]};
    for (const BarSeries& s : d.series) row.push_back(SvgValue(s.values[i]));
    row.push_back(SvgValue(totals[i]));
    table.rows.push_back(std::move(row));
  }
  std::vector<DataTable> tables{table};
  if (d.reference) tables.push_back(ReferenceTable(d.reference_label, *d.reference, d.spec.y_unit));
  return tables;
}

}  // namespace

std::string RenderStackedBarChart(const BarChartData& d) {
  CheckSpec(d.spec);
  CheckStackedData(d);
  const size_t n = d.categories.size(), m = d.series.size();

  std::vector<double> totals(n, 0.0);
  for (const BarSeries& s : d.series)
    for (size_t i = 0; i < n; ++i) totals[i] += s.values[i];
  double hi = 0;
  for (double v : totals) hi = std::max(hi, v);
  double lo = 0;
  if (d.reference) {
    hi = std::max(hi, *d.reference);
    lo = std::min(lo, *d.reference);
  }
  if (hi == 0 && lo == 0) hi = 1;
  std::vector<std::string> names;
  for (const BarSeries& s : d.series) names.push_back(s.name);

  PlotArea a;
  a.width = d.spec.width;
  a.height = d.spec.height;
  const Ticks t = AxisTicks(lo, hi, d.spec.y_unit, 5, true);
  a.left = YAxisMargin(t, d.spec.y_unit);
  // The totals are written above their bars, the tallest above the plot's top: a row of room
  // between it and the legend (issue 32: the legend covered the tallest total).
  const double totals_row = m > 0 ? kTotalsRowPx : 0;
  a.top += LegendHeight(a, names) + totals_row;
  const Scale y = Scale::Linear(t.lo, t.hi, a.y0(), a.y1());

  SvgWriter w;
  BeginFigure(w, d.spec, "stacked", d.spec.height, StackedDescription(d, totals));
  DrawYAxis(w, a, y, t, d.spec.y_label, d.spec.y_unit);
  const double band = (a.x1() - a.x0()) / static_cast<double>(std::max<size_t>(n, 1));
  std::vector<double> centres;
  for (size_t i = 0; i < n; ++i) centres.push_back(a.x0() + band * (static_cast<double>(i) + 0.5));
  DrawCategoryAxis(w, a, d.categories, centres, d.spec.x_label);
  DrawLegend(w, a, names, totals_row);
  if (n == 0 || m == 0) DrawNoData(w, a);
  DrawStacks(w, d, a, y, band, centres, totals);
  if (d.reference) DrawReferenceLine(w, a, y, *d.reference, d.reference_label, d.spec.y_unit);
  EndFigure(w, d.spec, StackedTables(d, totals));
  return w.Take();
}

}  // namespace paratune
