// Axes, tick labels and legends shared by the chart files (axis.h).
#include "report/axis.h"

#include <algorithm>
#include <cmath>

namespace paratune {
namespace {

// Okabe & Ito's eight colours, then four of Paul Tol's "muted" scheme (wine, teal, olive,
// indigo; personal.sron.nl/~pault, 2021) so that the eleven step-time terms of a run's
// breakdown never share a colour (issue 32: compute_s and optimizer_s did). page.cc defines them.
constexpr size_t kPaletteSize = 12;
constexpr double kLegendRow = 16;  // px per legend row
constexpr double kLegendSwatch = 10;

// Width of a legend entry: swatch, gap, the name at ~6.5 px per character (11 px sans), gap.
double EntryWidth(const std::string& name) { return kLegendSwatch + 4 + 6.5 * static_cast<double>(name.size()) + 14; }

}  // namespace

std::string SeriesColour(size_t i) { return "var(--series-" + std::to_string(i % kPaletteSize) + ")"; }

// Units FormatValue writes with a prefix or a unit of its own; the others are left to the label.
static bool ScaledUnit(const std::string& unit) {
  return unit == "s" || unit == "B" || unit == "B/s" || unit == "FLOP" || unit == "FLOP/s" || unit == "fraction";
}

std::vector<std::string> TickLabels(const Ticks& t, const std::string& unit_in) {
  const std::string unit = ScaledUnit(unit_in) ? unit_in : "";
  std::vector<std::string> labels;
  if (t.label_unit_s > 0) {  // duration ticks: whole multiples of their unit, "30 min"
    for (double v : t.values)
      labels.push_back(v == 0 ? std::string("0") : SvgNumber(v / t.label_unit_s, 0) + " " + t.label_unit);
    return labels;
  }
  for (double v : t.values) labels.push_back(FormatValue(v, unit));
  bool distinct = true;
  for (size_t i = 1; i < labels.size(); ++i) distinct = distinct && labels[i] != labels[i - 1];
  if (!distinct) {
    labels.clear();
    for (double v : t.values) labels.push_back(SvgNumber(v, t.decimals) + (unit.empty() ? "" : " " + unit));
  }
  return labels;
}

double YAxisMargin(const Ticks& t, const std::string& unit, double min_left) {
  size_t longest = 0;
  for (const std::string& l : TickLabels(t, unit)) longest = std::max(longest, l.size());
  // The rotated label's line (~14 px from the edge, 12 px font), then the labels at ~6.5 px per
  // character (11 px sans), 6 px from the axis.
  return std::max(min_left, 24 + 6.5 * static_cast<double>(longest) + 6);
}

namespace {
// The axis label, with the unit where the tick labels do not show it.
std::string AxisLabel(const std::string& label, const std::string& unit) {
  if (label.empty() || unit.empty() || ScaledUnit(unit) || label.find(unit) != std::string::npos) return label;
  return label + " (" + unit + ")";
}
}  // namespace

void DrawYAxis(SvgWriter& w, const PlotArea& a, const Scale& s, const Ticks& t, const std::string& label,
               const std::string& unit) {
  const std::vector<std::string> labels = TickLabels(t, unit);
  w.Open("g", {{"class", "axis y-axis"}});
  for (size_t i = 0; i < t.values.size(); ++i) {
    const std::string y = SvgNumber(s(t.values[i]), 1);
    w.Empty("line",
            {{"class", "grid"}, {"x1", SvgNumber(a.x0(), 1)}, {"x2", SvgNumber(a.x1(), 1)}, {"y1", y}, {"y2", y}});
    w.Text("text", labels[i],
           {{"class", "tick"},
            {"data-value", SvgValue(t.values[i])},
            {"x", SvgNumber(a.x0() - 6, 1)},
            {"y", y},
            {"text-anchor", "end"},
            {"dominant-baseline", "middle"}});
  }
  w.Empty("line", {{"class", "axis-line"},
                   {"x1", SvgNumber(a.x0(), 1)},
                   {"x2", SvgNumber(a.x0(), 1)},
                   {"y1", SvgNumber(a.y1(), 1)},
                   {"y2", SvgNumber(a.y0(), 1)}});
  if (!label.empty()) {
    const std::string x = SvgNumber(14, 1), y = SvgNumber((a.y0() + a.y1()) / 2, 1);
    w.Text("text", AxisLabel(label, unit),
           {{"class", "axis-label"},
            {"x", x},
            {"y", y},
            {"text-anchor", "middle"},
            {"transform", "rotate(-90 " + x + " " + y + ")"}});
  }
  w.Close("g");
}

void DrawXAxis(SvgWriter& w, const PlotArea& a, const Scale& s, const Ticks& t, const std::string& label,
               const std::string& unit) {
  const std::vector<std::string> labels = TickLabels(t, unit);
  w.Open("g", {{"class", "axis x-axis"}});
  for (size_t i = 0; i < t.values.size(); ++i) {
    const std::string x = SvgNumber(s(t.values[i]), 1);
    w.Empty("line",
            {{"class", "grid"}, {"x1", x}, {"x2", x}, {"y1", SvgNumber(a.y1(), 1)}, {"y2", SvgNumber(a.y0(), 1)}});
    w.Text("text", labels[i],
           {{"class", "tick"},
            {"data-value", SvgValue(t.values[i])},
            {"x", x},
            {"y", SvgNumber(a.y0() + 16, 1)},
            {"text-anchor", "middle"}});
  }
  w.Empty("line", {{"class", "axis-line"},
                   {"x1", SvgNumber(a.x0(), 1)},
                   {"x2", SvgNumber(a.x1(), 1)},
                   {"y1", SvgNumber(a.y0(), 1)},
                   {"y2", SvgNumber(a.y0(), 1)}});
  if (!label.empty()) {
    w.Text("text", AxisLabel(label, unit),
           {{"class", "axis-label"},
            {"x", SvgNumber((a.x0() + a.x1()) / 2, 1)},
            {"y", SvgNumber(a.height - 8, 1)},
            {"text-anchor", "middle"}});
  }
  w.Close("g");
}

size_t PixelCount(double x, size_t cap) {
  const double top = static_cast<double>(std::max<size_t>(1, cap));
  if (!(x >= 1)) return 1;  // NaN, negative, below 1
  return x >= top ? static_cast<size_t>(top) : static_cast<size_t>(x);
}

void DrawCategoryAxis(SvgWriter& w, const PlotArea& a, const std::vector<std::string>& categories,
                      const std::vector<double>& centres, const std::string& label) {
  w.Open("g", {{"class", "axis x-axis category-axis"}});
  w.Empty("line", {{"class", "axis-line"},
                   {"x1", SvgNumber(a.x0(), 1)},
                   {"x2", SvgNumber(a.x1(), 1)},
                   {"y1", SvgNumber(a.y0(), 1)},
                   {"y2", SvgNumber(a.y0(), 1)}});
  // Every k-th label where they would overlap (~7 px per character of the longest label); the
  // data table names them all.
  size_t longest = 1;
  for (const std::string& c : categories) longest = std::max(longest, c.size());
  const double band = categories.empty() ? 1 : (a.x1() - a.x0()) / static_cast<double>(categories.size());
  const size_t every = band > 0 ? PixelCount(std::ceil(6.5 * static_cast<double>(longest) / band), categories.size())
                                : std::max<size_t>(1, categories.size());
  for (size_t i = 0; i < categories.size() && i < centres.size(); i += every) {
    w.Text("text", categories[i],
           {{"class", "category"},
            {"x", SvgNumber(centres[i], 1)},
            {"y", SvgNumber(a.y0() + 16, 1)},
            {"text-anchor", "middle"}});
  }
  if (!label.empty()) {
    w.Text("text", label,
           {{"class", "axis-label"},
            {"x", SvgNumber((a.x0() + a.x1()) / 2, 1)},
            {"y", SvgNumber(a.height - 8, 1)},
            {"text-anchor", "middle"}});
  }
  w.Close("g");
}

double LegendHeight(const PlotArea& a, const std::vector<std::string>& names) {
  if (names.size() < 2) return 0;
  double x = a.x0();
  int rows = 1;
  for (const std::string& n : names) {
    const double width = EntryWidth(n);
    if (x + width > a.x1() && x > a.x0()) {
      ++rows;
      x = a.x0();
    }
    x += width;
  }
  return rows * kLegendRow;
}

void DrawLegend(SvgWriter& w, const PlotArea& a, const std::vector<std::string>& names, double above_px) {
  if (names.size() < 2) return;
  // The rows sit just above the plot (and above_px more), from the top of the margin
  // LegendHeight added.
  const double height = LegendHeight(a, names);
  double x = a.x0(), y = a.y1() - height - 4 - above_px;
  w.Open("g", {{"class", "legend"}});
  for (size_t i = 0; i < names.size(); ++i) {
    const double width = EntryWidth(names[i]);
    if (x + width > a.x1() && x > a.x0()) {
      x = a.x0();
      y += kLegendRow;
    }
    w.Open("g", {{"class", "legend-entry"}, {"data-series", names[i]}});
    w.Empty("rect", {{"x", SvgNumber(x, 1)},
                     {"y", SvgNumber(y + 3, 1)},
                     {"width", SvgNumber(kLegendSwatch)},
                     {"height", SvgNumber(kLegendSwatch)},
                     {"fill", SeriesColour(i)}});
    w.Text("text", names[i], {{"x", SvgNumber(x + kLegendSwatch + 4, 1)}, {"y", SvgNumber(y + 12, 1)}});
    w.Close("g");
    x += width;
  }
  w.Close("g");
}

}  // namespace paratune
