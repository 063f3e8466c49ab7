// Axes (axis.h): tick labels by unit, the y axis margin, the legend's rows, the palette.
#include "report/axis.h"

#include <cmath>

#include "report/chart_test_util.h"
#include "util/test_util.h"

namespace paratune {
namespace {

TEST(Axis, TickLabelsByUnit) {
  const Ticks t = NiceTicks(0, 2e9);  // 0 .. 2e9 by 5e8
  EXPECT_EQ(TickLabels(t, "B"), (std::vector<std::string>{"0 B", "500 MB", "1 GB", "1.5 GB", "2 GB"}));
  // A unit FormatValue does not scale: plain numbers, the axis label names the unit.
  EXPECT_EQ(TickLabels(NiceTicks(0, 97), "tokens/s"), (std::vector<std::string>{"0", "20", "40", "60", "80", "100"}));
  // Ticks that would print alike at 3 significant digits get the ticks' decimals.
  const Ticks narrow = NiceTicks(1000, 1001);  // 1000 .. 1001 by 0.2
  EXPECT_EQ(TickLabels(narrow, ""), (std::vector<std::string>{"1000", "1000.2", "1000.4", "1000.6", "1000.8", "1001"}));
}

TEST(Axis, DurationTickLabelsInTheStepsUnit) {
  EXPECT_EQ(TickLabels(DurationTicks(0, 5.79 * 86400), "s"),
            (std::vector<std::string>{"0", "1 d", "2 d", "3 d", "4 d", "5 d", "6 d"}));
  EXPECT_EQ(TickLabels(DurationTicks(0, 5400), "s"),
            (std::vector<std::string>{"0", "15 min", "30 min", "45 min", "60 min", "75 min", "90 min"}));
  EXPECT_EQ(TickLabels(DurationTicks(0, 72000), "s"), (std::vector<std::string>{"0", "6 h", "12 h", "18 h", "24 h"}));
  // Under 10 s: decimal seconds as FormatValue writes them.
  EXPECT_EQ(TickLabels(DurationTicks(0, 7), "s"), (std::vector<std::string>{"0 s", "2 s", "4 s", "6 s", "8 s"}));
}

TEST(Axis, YAxisMarginFitsTheLongestLabel) {
  EXPECT_DOUBLE_EQ(YAxisMargin(NiceTicks(0, 97), ""), 64);  // "100": 24 + 19.5 + 6 < 64
  // "1000.2" (6 characters): 24 + 39 + 6 = 69.
  EXPECT_DOUBLE_EQ(YAxisMargin(NiceTicks(1000, 1001), ""), 69);
}

TEST(Axis, LegendWrapsIntoRows) {
  PlotArea a;
  a.width = 200;  // plot 64 .. 184: 120 px
  a.height = 200;
  EXPECT_DOUBLE_EQ(LegendHeight(a, {"one"}), 0);  // a single series has no legend
  // "aaaa" entries are 10 + 4 + 26 + 14 = 54 px: two per 120 px row.
  EXPECT_DOUBLE_EQ(LegendHeight(a, {"aaaa", "bbbb"}), 16);
  EXPECT_DOUBLE_EQ(LegendHeight(a, {"aaaa", "bbbb", "cccc"}), 32);
  SvgWriter w;
  DrawLegend(w, a, {"aaaa", "bbbb", "cccc"});
  const auto entries = chart_test::Elements(w.str(), "g", "legend-entry");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[2].at("data-series"), "cccc");
  EXPECT_EQ(SeriesColour(2), "var(--series-2)");
  EXPECT_EQ(SeriesColour(9), "var(--series-9)");   // twelve colours (issue 32: the ninth reused the first)
  EXPECT_EQ(SeriesColour(13), "var(--series-1)");  // then again
  for (size_t i = 0; i < 12; ++i)
    for (size_t j = i + 1; j < 12; ++j) EXPECT_NE(SeriesColour(i), SeriesColour(j)) << i << " " << j;
}

}  // namespace
}  // namespace paratune

namespace paratune {
namespace {

// A plot area with no room (margins wider than the figure: a negative band per category) draws
// the first category's label only, where it used to convert a negative count to size_t (found
// by report_fuzz; fuzz/corpus/report/cluster-narrow-category-axis.json).
TEST(Axis, CategoryAxisWithNoRoomLabelsTheFirstCategory) {
  PlotArea a;
  a.width = 50;  // plot 64 .. 34
  a.height = 200;
  SvgWriter w;
  DrawCategoryAxis(w, a, {"alpha", "beta", "gamma"}, {40, 45, 50}, "");
  const auto labels = chart_test::Elements(w.str(), "text", "category");
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_EQ(PixelCount(-7, 3), 1u);
  EXPECT_EQ(PixelCount(std::nan(""), 3), 1u);
  EXPECT_EQ(PixelCount(2.7, 3), 2u);
  EXPECT_EQ(PixelCount(1e300, 3), 3u);
  EXPECT_EQ(PixelCount(5, 0), 1u);
}

}  // namespace
}  // namespace paratune
