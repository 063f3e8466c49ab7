// Line chart (line_chart.h). Downsampling: a series longer than max_points is cut into
// (max_points - 2) / 2 buckets of equal x width (equal index width when x is not sorted) and
// each bucket keeps its lowest and highest point, in x order, plus the first and last points:
// the "min/max per pixel column" decimation of plotting libraries (e.g. the M4 aggregation,
// Jugel et al., "M4: A Visualization-Oriented Time Series Data Aggregation", VLDB 2014), so a
// one-sample spike stays drawn.
#include "report/line_chart.h"

#include <algorithm>
#include <cmath>

#include "report/figure.h"
#include "report/scale.h"
#include "util/error.h"

namespace paratune {
namespace {

// Indices of the points drawn of (x, y).
std::vector<size_t> Downsample(const std::vector<double>& x, const std::vector<double>& y, size_t max_points) {
  const size_t n = x.size();
  std::vector<size_t> keep;
  max_points = std::max<size_t>(max_points, 4);
  if (n <= max_points) {
    for (size_t i = 0; i < n; ++i) keep.push_back(i);
    return keep;
  }
  const size_t buckets = (max_points - 2) / 2;
  const bool sorted = std::is_sorted(x.begin(), x.end());
  const double x0 = x.front(), half_span = x.back() / 2 - x.front() / 2;  // halves: no overflow
  auto bucket_of = [&](size_t i) -> size_t {
    size_t b;
    if (sorted && half_span > 0) {
      b = static_cast<size_t>((x[i] / 2 - x0 / 2) / half_span * static_cast<double>(buckets));
    } else {
      b = i * buckets / n;
    }
    return std::min(b, buckets - 1);
  };
  keep.push_back(0);
  size_t i = 1;
  while (i + 1 < n) {
    const size_t b = bucket_of(i);
    size_t lo = i, hi = i;
    size_t j = i;
    for (; j + 1 < n && bucket_of(j) == b; ++j) {
      if (y[j] < y[lo]) lo = j;
      if (y[j] > y[hi]) hi = j;
    }
    keep.push_back(std::min(lo, hi));
    if (hi != lo) keep.push_back(std::max(lo, hi));
    i = j;
  }
  keep.push_back(n - 1);
  return keep;
}

// Evenly spaced indices of [0, n), at most m (first and last included).
std::vector<size_t> Sample(size_t n, size_t m) {
  std::vector<size_t> idx;
  if (n == 0 || m == 0) return idx;
  if (n <= m || m == 1) {
    for (size_t i = 0; i < (n <= m ? n : 1); ++i) idx.push_back(i);
    return idx;
  }
  for (size_t k = 0; k < m; ++k)
    idx.push_back(static_cast<size_t>(
        std::llround(static_cast<double>(k) * static_cast<double>(n - 1) / static_cast<double>(m - 1))));
  return idx;
}

// The chart's point count and x and y ranges (over the series, markers and bands).
struct LineExtent {
  size_t points = 0;
  double xlo = 0, xhi = 0, ylo = 0, yhi = 0;
  bool any_x = false, any_y = false;
};

// Throws InputError for a series of unequal x and y lengths, a value that is not finite, or a
// value not above 0 on a log axis; returns the chart's extent.
LineExtent MeasureLineData(const LineChartData& d) {
  size_t points = 0;
  double xlo = 0, xhi = 0, ylo = 0, yhi = 0;
  bool any_x = false, any_y = false;
  auto add_x = [&](double v) {
    xlo = any_x ? std::min(xlo, v) : v;
    xhi = any_x ? std::max(xhi, v) : v;
    any_x = true;
  };
  for (const LineSeries& s : d.series) {
    if (s.x.size() != s.y.size()) {
      throw InputError("chart '" + d.spec.id + "': series '" + s.name + "' has " + std::to_string(s.x.size()) +
                       " x values and " + std::to_string(s.y.size()) + " y values");
    }
    CheckFinite(s.x, d.spec.id, "x of " + s.name);
    CheckFinite(s.y, d.spec.id, s.name);
    for (size_t i = 0; i < s.y.size(); ++i) {
      if (d.log_y && !(s.y[i] > 0)) {
        throw InputError("chart '" + d.spec.id + "': series '" + s.name + "' has " + SvgValue(s.y[i]) + " at index " +
                         std::to_string(i) + " on a log axis (values must be above 0)");
      }
      add_x(s.x[i]);
      ylo = any_y ? std::min(ylo, s.y[i]) : s.y[i];
      yhi = any_y ? std::max(yhi, s.y[i]) : s.y[i];
      any_y = true;
    }
    points += s.y.size();
  }
  for (size_t i = 0; i < d.markers.size(); ++i) {
    CheckFinite({d.markers[i].x}, d.spec.id, "marker " + std::to_string(i));
    add_x(d.markers[i].x);
  }
  for (size_t i = 0; i < d.bands.size(); ++i) {
    CheckFinite({d.bands[i].x0, d.bands[i].x1}, d.spec.id, "band " + std::to_string(i));
    add_x(d.bands[i].x0);
    add_x(d.bands[i].x1);
  }
  if (!any_x) xlo = 0, xhi = 1;
  if (!any_y) ylo = d.log_y ? 1 : 0, yhi = d.log_y ? 10 : 1;
  return {points, xlo, xhi, ylo, yhi, any_x, any_y};
}

// The figure's description: its series, points, y range, markers and bands.
std::string LineDescription(const LineChartData& d, const LineExtent& e) {
  std::string description =
      "Line chart of " + std::to_string(d.series.size()) + " series, " + std::to_string(e.points) + " points";
  if (e.any_y) {
    description += ", " + d.spec.y_label + (d.spec.y_label.empty() ? "" : " ") + "from " +
                   FormatValue(e.ylo, d.spec.y_unit) + " to " + FormatValue(e.yhi, d.spec.y_unit);
  }
  if (!d.markers.empty()) description += "; " + std::to_string(d.markers.size()) + " marked points";
  if (!d.bands.empty()) description += "; " + std::to_string(d.bands.size()) + " shaded ranges";
  description += ".";
  return description;
}

// The shaded x ranges, each a rect over the plot's height with its label as the tooltip.
void DrawLineBands(SvgWriter& w, const LineChartData& d, const PlotArea& a, const Scale& sx, const std::string& top) {
  for (const Band& b : d.bands) {
    const double x0 = sx(std::min(b.x0, b.x1)), x1 = sx(std::max(b.x0, b.x1));
    w.Open("rect", {{"class", "band"},
                    {"data-x0", SvgValue(b.x0)},
                    {"data-x1", SvgValue(b.x1)},
                    {"data-label", b.label},
                    {"x", SvgNumber(x0, 2)},
                    {"y", top},
                    {"width", SvgNumber(x1 - x0, 2)},
                    {"height", SvgNumber(a.y0() - a.y1(), 1)}});
    w.Text("title", b.label + ": " + FormatValue(b.x0, d.spec.x_unit) + " to " + FormatValue(b.x1, d.spec.x_unit));
    w.Close("rect");
  }
}

// Each series as a path of its downsampled points (a dot when it has one point).
void DrawLineSeries(SvgWriter& w, const LineChartData& d, const Scale& sx, const Scale& sy) {
  for (size_t k = 0; k < d.series.size(); ++k) {
    const LineSeries& s = d.series[k];
    if (s.x.empty()) continue;
    const std::vector<size_t> keep = Downsample(s.x, s.y, d.max_points);
    std::string path;
    path.reserve(keep.size() * 14);
    for (size_t i = 0; i < keep.size(); ++i) {
      const std::string px = SvgNumber(sx(s.x[keep[i]]), 1), py = SvgNumber(sy(s.y[keep[i]]), 1);
      if (i == 0) {
        path += "M" + px + "," + py;
      } else if (d.step) {
        path += "H" + px + "V" + py;
      } else {
        path += "L" + px + "," + py;
      }
    }
    w.Open("path", {{"class", "series"},
                    {"data-series", s.name},
                    {"data-points", std::to_string(keep.size())},
                    {"d", path},
                    {"fill", "none"},
                    {"stroke", SeriesColour(k)}});
    w.Text("title", s.name);
    w.Close("path");
    if (keep.size() == 1) {  // one point draws no line: a dot
      w.Empty("circle", {{"class", "point"},
                         {"cx", SvgNumber(sx(s.x[0]), 1)},
                         {"cy", SvgNumber(sy(s.y[0]), 1)},
                         {"r", "3"},
                         {"fill", SeriesColour(k)}});
    }
  }
}

// The marked x values, each a vertical line (labelled when there are at most 20).
void DrawLineMarkers(SvgWriter& w, const LineChartData& d, const PlotArea& a, const Scale& sx, const std::string& top,
                     const std::string& bottom) {
  const bool label_markers = d.markers.size() <= 20;
  for (const Marker& m : d.markers) {
    const std::string x = SvgNumber(sx(m.x), 2);
    w.Open("line", {{"class", "marker"},
                    {"data-x", SvgValue(m.x)},
                    {"data-label", m.label},
                    {"x1", x},
                    {"x2", x},
                    {"y1", top},
                    {"y2", bottom}});
    w.Text("title", m.label + " at " + FormatValue(m.x, d.spec.x_unit));
    w.Close("line");
    if (label_markers && !m.label.empty()) {
      w.Text("text", m.label,
             {{"class", "marker-label"}, {"x", SvgNumber(sx(m.x) + 3, 1)}, {"y", SvgNumber(a.y1() + 10, 1)}});
    }
  }
}

// The points table: one x column when every series has the same x, else series/x/y rows.
DataTable LinePointsTable(const LineChartData& d, const std::string& xcol) {
  DataTable pts;
  bool shared_x = !d.series.empty();
  for (const LineSeries& s : d.series) shared_x = shared_x && s.x == d.series.front().x;
  if (shared_x) {
    pts.columns.push_back(xcol);
    pts.numeric.push_back(true);
    for (const LineSeries& s : d.series) {
      pts.columns.push_back(WithUnit(s.name, d.spec.y_unit));
      pts.numeric.push_back(true);
    }
    for (size_t i : Sample(d.series.front().x.size(), d.max_table_rows)) {
      std::vector<std::string> row{SvgValue(d.series.front().x[i])};
      for (const LineSeries& s : d.series) row.push_back(SvgValue(s.y[i]));
      pts.rows.push_back(std::move(row));
    }
  } else {
    pts.columns = {"series", xcol, WithUnit(d.spec.y_label.empty() ? "y" : d.spec.y_label, d.spec.y_unit)};
    pts.numeric = {false, true, true};
    const size_t per = d.series.empty() ? 0 : std::max<size_t>(1, d.max_table_rows / d.series.size());
    for (const LineSeries& s : d.series) {
      for (size_t i : Sample(s.x.size(), per)) pts.rows.push_back({s.name, SvgValue(s.x[i]), SvgValue(s.y[i])});
    }
  }
  return pts;
}

// Tables: the points (one x column when every series has the same x, else series/x/y rows),
// then the markers and bands.
std::vector<DataTable> LineTables(const LineChartData& d) {
  std::vector<DataTable> tables;
  const std::string xcol = WithUnit(d.spec.x_label.empty() ? "x" : d.spec.x_label, d.spec.x_unit);
  tables.push_back(LinePointsTable(d, xcol));
  if (!d.markers.empty()) {
    DataTable mt;
    mt.css_class = "chart-data marker-data";
    mt.columns = {"marker", xcol};
    mt.numeric = {false, true};
    for (const Marker& m : d.markers) mt.rows.push_back({m.label, SvgValue(m.x)});
    tables.push_back(std::move(mt));
  }
  if (!d.bands.empty()) {
    DataTable bt;
    bt.css_class = "chart-data band-data";
    bt.columns = {"range", WithUnit("from", d.spec.x_unit), WithUnit("to", d.spec.x_unit)};
    bt.numeric = {false, true, true};
    for (const Band& b : d.bands) bt.rows.push_back({b.label, SvgValue(b.x0), SvgValue(b.x1)});
    tables.push_back(std::move(bt));
  }
  return tables;
}

}  // namespace

std::string RenderLineChart(const LineChartData& d) {
  CheckSpec(d.spec);
  const LineExtent e = MeasureLineData(d);

  std::vector<std::string> names;
  for (const LineSeries& s : d.series) names.push_back(s.name);
  PlotArea a;
  a.width = d.spec.width;
  a.height = d.spec.height;
  const Ticks tx = AxisTicks(e.xlo, e.xhi, d.spec.x_unit);
  const Ticks ty = d.log_y ? LogTicks(e.ylo, e.yhi) : AxisTicks(e.ylo, e.yhi, d.spec.y_unit);
  a.left = YAxisMargin(ty, d.spec.y_unit);
  a.top += LegendHeight(a, names);
  const Scale sx = Scale::Linear(tx.lo, tx.hi, a.x0(), a.x1());
  const Scale sy = d.log_y ? Scale::Log(ty.lo, ty.hi, a.y0(), a.y1()) : Scale::Linear(ty.lo, ty.hi, a.y0(), a.y1());

  SvgWriter w;
  BeginFigure(w, d.spec, "line", d.spec.height, LineDescription(d, e));
  DrawYAxis(w, a, sy, ty, d.spec.y_label, d.spec.y_unit);
  DrawXAxis(w, a, sx, tx, d.spec.x_label, d.spec.x_unit);
  DrawLegend(w, a, names);
  if (e.points == 0) DrawNoData(w, a);
  const std::string top = SvgNumber(a.y1(), 1), bottom = SvgNumber(a.y0(), 1);
  DrawLineBands(w, d, a, sx, top);
  DrawLineSeries(w, d, sx, sy);
  DrawLineMarkers(w, d, a, sx, top, bottom);
  EndFigure(w, d.spec, LineTables(d));
  return w.Take();
}

}  // namespace paratune
