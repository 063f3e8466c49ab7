// Axes and legends shared by the chart files: the plot area inside the figure's margins, an x or
// y axis with its ticks, grid lines and label, and a legend of series names and colours.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "report/scale.h"
#include "report/svg.h"

namespace paratune {

struct PlotArea {
  double left = 64, top = 28, right = 16, bottom = 48;  // margins, px
  double width = 0, height = 0;                         // of the figure
  double x0() const { return left; }
  double x1() const { return width - right; }
  double y0() const { return height - bottom; }  // bottom (y grows down)
  double y1() const { return top; }
};

// A count derived from pixels (label every k-th category, rects per row): `x` clamped to
// [1, cap], and 1 when `x` is not a finite positive number (a plot area with no room: margins
// wider than the figure), so a degenerate figure never turns into an out-of-range conversion.
size_t PixelCount(double x, size_t cap);

// Colour of series i (a palette readable in light and dark mode and for the common colour
// vision deficiencies: Okabe & Ito, "Color Universal Design", 2008), as a CSS variable
// reference "var(--series-i)" whose values page.cc defines.
std::string SeriesColour(size_t i);

void DrawYAxis(SvgWriter& w, const PlotArea& a, const Scale& s, const Ticks& t, const std::string& label,
               const std::string& unit);
void DrawXAxis(SvgWriter& w, const PlotArea& a, const Scale& s, const Ticks& t, const std::string& label,
               const std::string& unit);
// Category labels under band positions (bar charts).
void DrawCategoryAxis(SvgWriter& w, const PlotArea& a, const std::vector<std::string>& categories,
                      const std::vector<double>& centres, const std::string& label);
// The legend: one row of swatches and names above the plot, wrapped into more rows when they do
// not fit; LegendHeight says how much to add to the top margin for it (0 for one series or none).
// `above_px`: room left between the legend and the plot (for labels drawn over the plot's top).
void DrawLegend(SvgWriter& w, const PlotArea& a, const std::vector<std::string>& names, double above_px = 0);
double LegendHeight(const PlotArea& a, const std::vector<std::string>& names);
// Tick labels of an axis: duration ticks (Ticks::label_unit_s > 0) in their unit ("0", "30 min",
// "60 min"); else FormatValue(v, unit) for the units FormatValue scales (s, B, B/s, FLOP,
// FLOP/s, fraction), plain numbers with k/M/G for any other unit (the axis label names it), or,
// where two ticks would print alike (a narrow range far from zero), the number with t.decimals
// decimals.
std::vector<std::string> TickLabels(const Ticks& t, const std::string& unit);
// The left margin a y axis needs for its tick labels and its label (at least `min_left`).
double YAxisMargin(const Ticks& t, const std::string& unit, double min_left = 64);

}  // namespace paratune
