// Gantt chart (gantt_chart.h): rows (empty ones too), spans at hand-computed pixels, categories,
// and the aggregation of a 64-stage x 1,024-micro-batch pipeline.
#include "report/gantt_chart.h"

#include <cmath>
#include <map>

#include "report/chart_test_util.h"
#include "util/test_util.h"

namespace paratune {
namespace {

using chart_test::Elements;

GanttChartData Small() {
  GanttChartData d;
  d.spec.id = "gantt";
  d.spec.title = "Pipeline";
  d.spec.x_unit = "s";
  d.rows = {"stage 0", "stage 1", "stage 2"};
  d.categories = {"forward", "backward"};
  d.spans = {{0, 0, 1, "forward", "mb 0"}, {0, 1, 3, "backward", "mb 0"}, {1, 1, 2, "forward", "mb 0"}};
  return d;
}

TEST(GanttChart, RowsAndSpansFollowTheDomContract) {
  const std::string html = RenderGanttChart(Small());
  EXPECT_EQ(chart_test::WellFormed(html), "");
  EXPECT_EQ(Elements(html, "figure")[0].at("data-chart"), "gantt");
  const auto rows = Elements(html, "g", "gantt-row");
  ASSERT_EQ(rows.size(), 3u);  // the empty stage 2 too
  EXPECT_EQ(rows[2].at("data-row"), "stage 2");
  EXPECT_EQ(rows[0].count("data-aggregated"), 0u);
  // Rows: plot height 360 - 44 - 48 = 268 over 3 rows is above the 28 px cap: 28 px each, so
  // the figure is 44 + 48 + 84 = 176 px high; row r at y = 44 + 28 r + 2.8.
  EXPECT_EQ(Elements(html, "svg")[0].at("viewbox"), "0 0 760 176");
  EXPECT_EQ(rows[1].at("transform"), "translate(0,74.8)");
  const auto spans = Elements(html, "rect", "span");
  ASSERT_EQ(spans.size(), 3u);
  // x: NiceTicks(0, 3) = [0, 3] by 1 (range nice(3) = 5, spacing nice(1.25) = 1); 680 px.
  // stage 1's forward [1, 2]: x = 64 + 226.67, width 226.67.
  EXPECT_EQ(spans[2].at("data-category"), "forward");
  EXPECT_EQ(spans[2].at("data-start"), "1");
  EXPECT_EQ(spans[2].at("data-end"), "2");
  EXPECT_EQ(spans[2].at("x"), "290.67");
  EXPECT_EQ(spans[2].at("width"), "226.67");
  EXPECT_EQ(spans[2].at("height"), "22.4");
  // Colours from the figure's style, by category, in legend order.
  EXPECT_CONTAINS(html, "#gantt rect.span[data-category=\"backward\"]{fill:var(--series-1)}");
  EXPECT_EQ(Elements(html, "g", "legend-entry").size(), 2u);
  // Tooltips and the table of busy time per row and category.
  EXPECT_CONTAINS(html, "<title>mb 0: 1 s to 3 s</title>");
  EXPECT_CONTAINS(html,
                  "<tr><td>stage 0</td><td class=\"num\">2</td><td class=\"num\">1</td><td class=\"num\">2</td></tr>");
  EXPECT_CONTAINS(html,
                  "<tr><td>stage 2</td><td class=\"num\">0</td><td class=\"num\">0</td><td class=\"num\">0</td></tr>");
}

TEST(GanttChart, TimeAxisSpansTheScheduleExactly) {
  GanttChartData d = Small();
  d.spans[1].end = 2.5;  // the schedule is [0, 2.5]
  const std::string html = RenderGanttChart(d);
  // The scale is [0, 2.5] (not the niced [0, 3]): backward [1, 2.5] is 1.5 / 2.5 x 680 = 408 px
  // wide and ends at 744; the ticks are the nice ones inside, 0, 1, 2.
  const auto spans = Elements(html, "rect", "span");
  EXPECT_EQ(spans[1].at("x"), "336");
  EXPECT_EQ(spans[1].at("width"), "408");
  const auto ticks = Elements(html, "text", "tick");
  ASSERT_EQ(ticks.size(), 3u);
  EXPECT_EQ(ticks[2].at("data-value"), "2");
}

TEST(GanttChart, UnlistedCategoriesAreOther) {
  GanttChartData d = Small();
  d.spans.push_back({2, 0, 1, "send/recv \"p2p\"", ""});
  const std::string html = RenderGanttChart(d);
  const auto spans = Elements(html, "rect", "span");
  ASSERT_EQ(spans.size(), 4u);
  EXPECT_EQ(spans[3].at("data-category"), "other");
  EXPECT_EQ(Elements(html, "g", "legend-entry").size(), 3u);
  // Without a list, categories come as they appear; a quote in a name is a CSS escape.
  d.categories.clear();
  const std::string html2 = RenderGanttChart(d);
  // Escaped in the markup, and the same name once read back (Elements decodes entities).
  EXPECT_CONTAINS(html2, "data-category=\"send/recv &quot;p2p&quot;\"");
  EXPECT_EQ(Elements(html2, "rect", "span")[3].at("data-category"), "send/recv \"p2p\"");
  EXPECT_CONTAINS(html2, "[data-category=\"send\\2f recv\\20 \\22 p2p\\22 \"]{fill:var(--series-2)}");
  EXPECT_EQ(chart_test::WellFormed(html2), "");
}

TEST(GanttChart, Rejections) {
  GanttChartData d = Small();
  d.spans[1].end = 0.5;
  EXPECT_EQ(InputErrorOf([&] { RenderGanttChart(d); }), "chart 'gantt': span 1 ends (0.5) before it starts (1)");
  d = Small();
  d.spans[2].row = 3;
  EXPECT_EQ(InputErrorOf([&] { RenderGanttChart(d); }), "chart 'gantt': span 2 is in row 3 of 3");
  d = Small();
  d.spans[0].start = std::nan("");
  EXPECT_CONTAINS(InputErrorOf([&] { RenderGanttChart(d); }), "span 0 has a time that is not finite");
}

TEST(GanttChart, EmptySaysNoData) {
  GanttChartData d;
  d.spec.id = "empty";
  std::string html = RenderGanttChart(d);
  EXPECT_CONTAINS(html, ">no data</text>");
  EXPECT_EQ(chart_test::WellFormed(html), "");
  d.rows = {"a", "b"};
  html = RenderGanttChart(d);
  EXPECT_EQ(Elements(html, "g", "gantt-row").size(), 2u);
  EXPECT_CONTAINS(html, ">no data</text>");
}

// A 1F1B-like schedule: stage s starts s x 1 ms late; each micro-batch is forward 1 ms, backward
// 2 ms, weight-grad 1 ms with a 0.25 ms gap after each (3 spans per micro-batch).
GanttChartData Pipeline(int stages, int micro_batches) {
  GanttChartData d;
  d.spec.id = "pipeline";
  d.spec.x_unit = "s";
  d.categories = {"forward", "backward", "weight-grad"};
  for (int s = 0; s < stages; ++s) {
    d.rows.push_back("stage " + std::to_string(s));
    double t = 1e-3 * s;
    for (int m = 0; m < micro_batches; ++m) {
      d.spans.push_back({s, t, t + 1e-3, "forward", ""});
      t += 1.25e-3;
      d.spans.push_back({s, t, t + 2e-3, "backward", ""});
      t += 2.25e-3;
      d.spans.push_back({s, t, t + 1e-3, "weight-grad", ""});
      t += 1.25e-3;
    }
  }
  return d;
}

TEST(GanttChart, LargePipelineIsAggregated) {
  const GanttChartData d = Pipeline(64, 1024);
  ASSERT_EQ(d.spans.size(), 64u * 3072u);
  const std::string html = RenderGanttChart(d);
  const auto rows = Elements(html, "g", "gantt-row");
  ASSERT_EQ(rows.size(), 64u);
  for (const auto& r : rows) EXPECT_EQ(r.at("data-aggregated"), "3072");
  const auto spans = Elements(html, "rect", "span");
  EXPECT_LT(spans.size(), d.max_spans);
  // Covered time per category kept (1,024 x 64 x 1 ms forward, 2 ms backward, 1 ms wgrad).
  std::map<std::string, double> total;
  for (const auto& s : spans)
    total[s.at("data-category")] += std::stod(s.at("data-end")) - std::stod(s.at("data-start"));
  EXPECT_NEAR(total["forward"], 64 * 1024 * 1e-3, 0.01 * 64 * 1024 * 1e-3);
  EXPECT_NEAR(total["backward"], 64 * 1024 * 2e-3, 0.01 * 64 * 1024 * 2e-3);
  EXPECT_NEAR(total["weight-grad"], 64 * 1024 * 1e-3, 0.01 * 64 * 1024 * 1e-3);
  // Small enough to open at once.
  EXPECT_LT(html.size(), 2u * 1024 * 1024) << html.size() << " bytes";
  EXPECT_EQ(chart_test::WellFormed(html), "");
}

TEST(GanttChart, FewSpansAreNotAggregated) {
  GanttChartData d = Pipeline(4, 8);
  d.max_spans = 96;  // exactly the count: drawn as is
  std::string html = RenderGanttChart(d);
  EXPECT_EQ(Elements(html, "rect", "span").size(), 96u);
  EXPECT_EQ(chart_test::Count(html, "data-aggregated"), 0u);
  d.max_spans = 40;  // 10 rects per row
  html = RenderGanttChart(d);
  const auto spans = Elements(html, "rect", "span");
  EXPECT_LE(spans.size(), 40u);
  EXPECT_EQ(Elements(html, "g", "gantt-row")[0].at("data-aggregated"), "24");
}

}  // namespace
}  // namespace paratune
