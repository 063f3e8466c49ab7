// Grouped and stacked bar charts (bar_chart.h, stacked_bar_chart.h): the DOM contract of chart.h
// and bar positions worked by hand from the default 760 x 360 figure (margins left 64, right 16,
// top 28 + 16 for a one-row legend, bottom 48).
#include "report/bar_chart.h"

#include <cmath>

#include "report/chart_test_util.h"
#include "report/svg.h"
#include "report/stacked_bar_chart.h"
#include "util/test_util.h"

namespace paratune {
namespace {

using chart_test::Count;
using chart_test::Elements;

BarChartData TwoSeries() {
  BarChartData d;
  d.spec.id = "plan-tps";
  d.spec.title = "Tokens/s per GPU";
  d.spec.x_label = "layout";
  d.spec.y_label = "tokens/s per GPU";
  d.categories = {"tp1", "tp2", "tp4"};
  d.series = {{"A", {10, 20, 30}}, {"B", {5, 15, 25}}};
  return d;
}

TEST(BarChart, FigureFollowsTheDomContract) {
  const std::string html = RenderBarChart(TwoSeries());
  EXPECT_EQ(chart_test::WellFormed(html), "");
  const auto fig = Elements(html, "figure");
  ASSERT_EQ(fig.size(), 1u);
  EXPECT_EQ(fig[0].at("class"), "chart");
  EXPECT_EQ(fig[0].at("id"), "plan-tps");
  EXPECT_EQ(fig[0].at("data-chart"), "bar");
  const auto svg = Elements(html, "svg");
  ASSERT_EQ(svg.size(), 1u);
  EXPECT_EQ(svg[0].at("role"), "img");
  EXPECT_EQ(svg[0].at("viewbox"), "0 0 760 360");
  EXPECT_EQ(svg[0].at("aria-labelledby"), "plan-tps-title");
  EXPECT_CONTAINS(html, "<title id=\"plan-tps-title\">Tokens/s per GPU</title>");
  EXPECT_CONTAINS(
      html, "<desc id=\"plan-tps-desc\">Bar chart of 2 series over 3 categories; the largest is A of tp4, 30.</desc>");
  // The caption, then the table in <details>: one row per category, one column per series.
  EXPECT_LT(html.find("</svg>"), html.find("<figcaption>"));
  EXPECT_LT(html.find("<figcaption>"), html.find("<details>"));
  EXPECT_EQ(Elements(html, "table", "chart-data").size(), 1u);
  EXPECT_EQ(Count(html, "<tr>"), 4u);
  EXPECT_CONTAINS(html, "<td>tp2</td><td class=\"num\">20</td><td class=\"num\">15</td>");
  // Two series: a legend with both.
  EXPECT_EQ(Elements(html, "g", "legend-entry").size(), 2u);
}

TEST(BarChart, BarsAtHandComputedPositions) {
  const std::string html = RenderBarChart(TwoSeries());
  const auto bars = Elements(html, "rect", "bar");
  ASSERT_EQ(bars.size(), 6u);  // categories x series, category-major
  // y ticks: NiceTicks(0, 30) = 0, 10, 20, 30; y(0) = 312 (360 - 48), y(30) = 44 (28 + 16).
  const auto ticks = Elements(html, "text", "tick");
  ASSERT_EQ(ticks.size(), 4u);
  EXPECT_EQ(ticks[3].at("data-value"), "30");
  EXPECT_EQ(ticks[3].at("y"), "44");
  // Band (744 - 64) / 3 = 226.667, bar 0.8 x band / 2 = 90.667.
  // A at tp2: x = 64 + 1.1 x band = 313.33, y = 312 - 20/30 x 268 = 133.33, height 178.67.
  const auto& a2 = bars[2];
  EXPECT_EQ(a2.at("data-series"), "A");
  EXPECT_EQ(a2.at("data-category"), "tp2");
  EXPECT_EQ(a2.at("data-value"), "20");
  EXPECT_EQ(a2.at("x"), "313.33");
  EXPECT_EQ(a2.at("y"), "133.33");
  EXPECT_EQ(a2.at("width"), "90.67");
  EXPECT_EQ(a2.at("height"), "178.67");
  EXPECT_EQ(a2.at("fill"), "var(--series-0)");
  // B at tp4: x = 64 + 2.1 x band + bar = 630.67, y = 312 - 25/30 x 268 = 88.67.
  const auto& b4 = bars[5];
  EXPECT_EQ(b4.at("data-series"), "B");
  EXPECT_EQ(b4.at("x"), "630.67");
  EXPECT_EQ(b4.at("y"), "88.67");
  EXPECT_EQ(b4.at("height"), "223.33");
  EXPECT_EQ(b4.at("fill"), "var(--series-1)");
}

TEST(BarChart, ReferenceLineWidensTheAxis) {
  BarChartData d = TwoSeries();
  d.series.pop_back();  // one series: no legend, top margin 28
  d.reference = 35;
  d.reference_label = "HBM";
  const std::string html = RenderBarChart(d);
  EXPECT_TRUE(Elements(html, "g", "legend").empty());
  // NiceTicks(0, 35): range 50, spacing 10, [0, 40]; y(35) = 312 - 35/40 x 284 = 63.5.
  const auto ref = Elements(html, "line", "reference");
  ASSERT_EQ(ref.size(), 1u);
  EXPECT_EQ(ref[0].at("data-value"), "35");
  EXPECT_EQ(ref[0].at("data-label"), "HBM");
  EXPECT_EQ(ref[0].at("y1"), "63.5");
  EXPECT_EQ(Elements(html, "table", "reference-data").size(), 1u);
}

TEST(BarChart, LogAxisAndRejections) {
  BarChartData d = TwoSeries();
  d.log_y = true;
  d.series = {{"A", {3, 40, 4000}}};
  const std::string html = RenderBarChart(d);
  // Decades 1 .. 10000 over 312 .. 28 (71 px each): 4000 at 312 - log10(4000) x 71 = 56.24.
  const auto bars = Elements(html, "rect", "bar");
  ASSERT_EQ(bars.size(), 3u);
  EXPECT_NEAR(std::stod(bars[2].at("y")), 312 - std::log10(4000.0) * 71, 0.01);
  EXPECT_EQ(bars[2].at("height"), SvgNumber(std::log10(4000.0) * 71, 2));
  d.series[0].values[1] = 0;
  EXPECT_CONTAINS(InputErrorOf([&] { RenderBarChart(d); }), "on a log axis");
  d = TwoSeries();
  d.series[1].values.pop_back();
  EXPECT_CONTAINS(InputErrorOf([&] { RenderBarChart(d); }), "series 'B' has 2 values for 3 categories");
  d = TwoSeries();
  d.series[0].values[2] = std::nan("");
  EXPECT_CONTAINS(InputErrorOf([&] { RenderBarChart(d); }), "chart 'plan-tps': series 'A' has a NaN value at index 2");
  d = TwoSeries();
  d.spec.id = "Plan TPS";
  EXPECT_CONTAINS(InputErrorOf([&] { RenderBarChart(d); }), "id 'Plan TPS' is not made of [a-z0-9-]");
}

TEST(BarChart, NegativeValuesHangFromZero) {
  BarChartData d = TwoSeries();
  d.series = {{"delta", {-20, 10, 0}}};
  const std::string html = RenderBarChart(d);
  // NiceTicks(-20, 10): range 50, spacing 10, [-20, 10]; y(0) = 312 - 20/30 x 284 = 122.67.
  const auto bars = Elements(html, "rect", "bar");
  ASSERT_EQ(bars.size(), 3u);
  EXPECT_EQ(bars[0].at("y"), "122.67");
  EXPECT_EQ(bars[0].at("height"), "189.33");
  EXPECT_EQ(bars[2].at("height"), "0");  // a zero still has its bar (one per category)
}

TEST(BarChart, EmptySaysNoData) {
  BarChartData d;
  d.spec.id = "empty";
  const std::string html = RenderBarChart(d);
  EXPECT_CONTAINS(html, ">no data</text>");
  EXPECT_TRUE(Elements(html, "rect", "bar").empty());
  EXPECT_EQ(chart_test::WellFormed(html), "");
}

TEST(StackedBarChart, PartsStackFromZero) {
  BarChartData d;
  d.spec.id = "memory";
  d.spec.y_unit = "B";
  d.categories = {"stage 0", "stage 1"};
  d.series = {{"weights", {20e9, 10e9}}, {"activations", {40e9, 30e9}}};
  d.reference = 80e9;
  d.reference_label = "HBM";
  const std::string html = RenderStackedBarChart(d);
  EXPECT_EQ(chart_test::WellFormed(html), "");
  EXPECT_EQ(Elements(html, "figure")[0].at("data-chart"), "stacked");
  // NiceTicks(0, 80e9): range 1e11, spacing 2e10, [0, 8e10]; plot 312 .. 60 (legend, then a
  // 16 px row for the totals written over the bars): 252 px.
  // stage 0: weights 312 .. 312 - 20/80 x 252 = 249; activations 249 .. 249 - 126 = 123.
  const auto bars = Elements(html, "rect", "bar");
  ASSERT_EQ(bars.size(), 4u);
  EXPECT_EQ(bars[0].at("data-series"), "weights");
  EXPECT_EQ(bars[0].at("data-value"), "20000000000");
  EXPECT_EQ(bars[0].at("y"), "249");
  EXPECT_EQ(bars[0].at("height"), "63");
  EXPECT_EQ(bars[1].at("y"), "123");
  EXPECT_EQ(bars[1].at("height"), "126");
  // Stack 60% of the band (340 px) wide, from 20% in: x = 64 + 68 = 132, width 204.
  EXPECT_EQ(bars[0].at("x"), "132");
  EXPECT_EQ(bars[0].at("width"), "204");
  const auto ref = Elements(html, "line", "reference");
  ASSERT_EQ(ref.size(), 1u);
  EXPECT_EQ(ref[0].at("y1"), "60");
  // Totals in the table.
  EXPECT_CONTAINS(html,
                  "<td>stage 1</td><td class=\"num\">10000000000</td><td class=\"num\">30000000000</td><td "
                  "class=\"num\">40000000000</td>");
  EXPECT_CONTAINS(html, "stage 0, 60 GB");
}

TEST(StackedBarChart, Rejections) {
  BarChartData d;
  d.spec.id = "memory";
  d.categories = {"a"};
  d.series = {{"x", {-1}}};
  EXPECT_CONTAINS(InputErrorOf([&] { RenderStackedBarChart(d); }), "negative part -1 at index 0");
  d.series = {{"x", {1}}};
  d.log_y = true;
  EXPECT_CONTAINS(InputErrorOf([&] { RenderStackedBarChart(d); }), "no log axis");
}

}  // namespace
}  // namespace paratune
