// Line chart (line_chart.h): paths at hand-computed pixels (default 760 x 360, one series: plot
// x 64 .. 744, y 312 .. 28), step paths, markers and bands, downsampling that keeps a spike.
#include "report/line_chart.h"

#include <cmath>
#include <regex>

#include "report/chart_test_util.h"
#include "report/svg.h"
#include "util/test_util.h"

namespace paratune {
namespace {

using chart_test::Elements;

LineChartData Three() {
  LineChartData d;
  d.spec.id = "tput";
  d.spec.title = "Throughput";
  d.spec.x_label = "iteration";
  d.series = {{"tokens/s", {0, 1, 2}, {0, 10, 5}}};
  return d;
}

// The (x, y) pairs of a path written as M/L commands.
std::vector<std::pair<std::string, std::string>> PathPoints(const std::string& d) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::regex pt(R"re([ML](-?[0-9.]+),(-?[0-9.]+))re");
  for (auto it = std::sregex_iterator(d.begin(), d.end(), pt); it != std::sregex_iterator(); ++it) {
    out.emplace_back((*it)[1], (*it)[2]);
  }
  return out;
}

TEST(LineChart, PathAtHandComputedPixels) {
  const std::string html = RenderLineChart(Three());
  EXPECT_EQ(chart_test::WellFormed(html), "");
  EXPECT_EQ(Elements(html, "figure")[0].at("data-chart"), "line");
  // x: NiceTicks(0, 2) = 0 .. 2 by 0.5, x(1) = 404; y: NiceTicks(0, 10) = 0 .. 10 by 2,
  // y(10) = 28, y(5) = 170.
  const auto paths = Elements(html, "path", "series");
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(paths[0].at("data-series"), "tokens/s");
  EXPECT_EQ(paths[0].at("data-points"), "3");
  EXPECT_EQ(paths[0].at("d"), "M64,312L404,28L744,170");
  EXPECT_EQ(paths[0].at("fill"), "none");
  // The table: one x column and the series.
  EXPECT_CONTAINS(html, "<tr><td class=\"num\">1</td><td class=\"num\">10</td></tr>");
}

TEST(LineChart, StepPath) {
  LineChartData d = Three();
  d.step = true;
  EXPECT_EQ(Elements(RenderLineChart(d), "path", "series")[0].at("d"), "M64,312H404V28H744V170");
}

TEST(LineChart, MarkersAndBands) {
  LineChartData d = Three();
  d.markers = {{1, "change point"}};
  d.bands = {{0.5, 1.5, "throttled"}};
  const std::string html = RenderLineChart(d);
  const auto m = Elements(html, "line", "marker");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].at("data-x"), "1");
  EXPECT_EQ(m[0].at("data-label"), "change point");
  EXPECT_EQ(m[0].at("x1"), "404");
  EXPECT_EQ(m[0].at("y1"), "28");
  EXPECT_EQ(m[0].at("y2"), "312");
  // Band 0.5 .. 1.5: x 234 .. 574.
  const auto b = Elements(html, "rect", "band");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].at("data-x0"), "0.5");
  EXPECT_EQ(b[0].at("data-x1"), "1.5");
  EXPECT_EQ(b[0].at("data-label"), "throttled");
  EXPECT_EQ(b[0].at("x"), "234");
  EXPECT_EQ(b[0].at("width"), "340");
  EXPECT_EQ(b[0].at("height"), "284");
  EXPECT_EQ(Elements(html, "table", "marker-data").size(), 1u);
  EXPECT_EQ(Elements(html, "table", "band-data").size(), 1u);
}

TEST(LineChart, DownsamplingKeepsTheSpike) {
  LineChartData d;
  d.spec.id = "big";
  LineSeries s{"loss", {}, {}};
  const size_t n = 100000, spike = 54321;
  for (size_t i = 0; i < n; ++i) {
    s.x.push_back(static_cast<double>(i));
    s.y.push_back(i == spike ? 100.0 : 1.0 + 0.001 * static_cast<double>(i % 7));
  }
  d.series = {s};
  d.max_points = 2000;
  const std::string html = RenderLineChart(d);
  const auto paths = Elements(html, "path", "series");
  ASSERT_EQ(paths.size(), 1u);
  const auto pts = PathPoints(paths[0].at("d"));
  EXPECT_LE(pts.size(), 2000u);
  EXPECT_GE(pts.size(), 1000u);
  EXPECT_EQ(paths[0].at("data-points"), std::to_string(pts.size()));
  // x: NiceTicks(0, 99999) = [0, 100000]: the spike at 64 + 0.54321 x 680 = 433.4; y:
  // NiceTicks(1, 100) = [0, 100]: 100 at the top, 28.
  bool found = false;
  for (const auto& p : pts) found = found || (p.first == "433.4" && p.second == "28");
  EXPECT_TRUE(found) << "the spike is not drawn";
  // The first and last points are drawn.
  EXPECT_EQ(pts.front().first, "64");
  EXPECT_EQ(pts.back().first, SvgNumber(64 + 99999.0 / 100000 * 680, 1));
  // The table keeps max_table_rows rows.
  EXPECT_EQ(chart_test::Count(html, "<tr>"), 1 + d.max_table_rows);
}

TEST(LineChart, SeveralSeriesLegendAndLongTable) {
  LineChartData d = Three();
  d.series.push_back({"other", {0.5, 1.5}, {2, 4}});
  const std::string html = RenderLineChart(d);
  EXPECT_EQ(Elements(html, "path", "series").size(), 2u);
  EXPECT_EQ(Elements(html, "g", "legend-entry").size(), 2u);
  EXPECT_EQ(Elements(html, "path", "series")[1].at("stroke"), "var(--series-1)");
  // Different x: the table has series, x, y rows.
  EXPECT_CONTAINS(html, "<tr><td>other</td><td class=\"num\">1.5</td><td class=\"num\">4</td></tr>");
}

TEST(LineChart, EmptyAndSinglePoint) {
  LineChartData d;
  d.spec.id = "empty";
  std::string html = RenderLineChart(d);
  EXPECT_CONTAINS(html, ">no data</text>");
  EXPECT_EQ(chart_test::WellFormed(html), "");
  d.series = {{"empty series", {}, {}}};
  html = RenderLineChart(d);
  EXPECT_CONTAINS(html, ">no data</text>");
  EXPECT_TRUE(Elements(html, "path", "series").empty());
  // One point: the domain widens around it to [0, 2 x 7], niced to [0, 15] (range nice(14) =
  // 20, spacing 5), on both axes, and a dot is drawn at 7 / 15 of each.
  d.series = {{"one", {7}, {7}}};
  html = RenderLineChart(d);
  const auto dot = Elements(html, "circle", "point");
  ASSERT_EQ(dot.size(), 1u);
  EXPECT_EQ(dot[0].at("cx"), "381.3");  // 64 + 7/15 x 680
  EXPECT_EQ(dot[0].at("cy"), "179.5");  // 312 - 7/15 x 284
}

TEST(LineChart, Rejections) {
  LineChartData d = Three();
  d.series[0].y[1] = std::nan("");
  EXPECT_EQ(InputErrorOf([&] { RenderLineChart(d); }), "chart 'tput': series 'tokens/s' has a NaN value at index 1");
  d = Three();
  d.series[0].x[2] = INFINITY;
  EXPECT_CONTAINS(InputErrorOf([&] { RenderLineChart(d); }), "series 'x of tokens/s' has an infinite value at index 2");
  d = Three();
  d.series[0].x.pop_back();
  EXPECT_CONTAINS(InputErrorOf([&] { RenderLineChart(d); }), "has 2 x values and 3 y values");
  d = Three();
  d.log_y = true;
  EXPECT_CONTAINS(InputErrorOf([&] { RenderLineChart(d); }), "on a log axis");
  d = Three();
  d.markers = {{NAN, "bad"}};
  EXPECT_CONTAINS(InputErrorOf([&] { RenderLineChart(d); }), "series 'marker 0' has a NaN value");
}

TEST(LineChart, LogAxis) {
  LineChartData d = Three();
  d.log_y = true;
  d.series[0].y = {1, 100, 10000};
  // Decades 1 .. 10000 over 312 .. 28: 100 at the middle, 170.
  EXPECT_EQ(Elements(RenderLineChart(d), "path", "series")[0].at("d"), "M64,312L404,170L744,28");
}

}  // namespace
}  // namespace paratune
