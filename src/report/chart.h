// The data of the report's charts, written once: what each chart type draws, and the DOM it
// produces, which the browser tests check (docs/report.md, "DOM contract"):
//   <figure class="chart" id=ID data-chart=KIND> <svg role="img" aria-labelledby> with <title>
//   and <desc> (the text alternative), then <details><summary>Data</summary><table
//   class="chart-data"> with every number the chart shows.
//   bar / stacked:  <rect class="bar" data-series data-category data-value>, a reference line
//                   <line class="reference" data-value data-label> (e.g. HBM capacity)
//   line:           <path class="series" data-series data-points=N>, markers
//                   <line class="marker" data-x data-label>, shaded <rect class="band" data-x0 data-x1 data-label>
//   gantt:          <g class="gantt-row" data-row=NAME> holding <rect class="span" data-category
//                   data-start data-end>; data-aggregated="K" on a row drawn from K merged spans
// Each chart type is its own file (bar_chart.h, stacked_bar_chart.h, line_chart.h, gantt_chart.h);
// axes, legends and tables are shared (axis.h, legend.h, data_table.h).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace paratune {

struct ChartSpec {
  std::string id;           // DOM id, unique in the page ([a-z0-9-])
  std::string title;        // <title> and the caption
  std::string description;  // <desc>: the text alternative, one or two sentences
  std::string x_label, y_label;
  std::string x_unit, y_unit;  // for FormatValue (scale.h)
  int width = 760, height = 360;
};

// Bars: one group of bars per category, one bar per series (grouped), or one stack per
// category (stacked_bar_chart.h).
struct BarSeries {
  std::string name;
  std::vector<double> values;  // one per category
};
struct BarChartData {
  ChartSpec spec;
  std::vector<std::string> categories;
  std::vector<BarSeries> series;
  std::optional<double> reference;  // a horizontal line (e.g. the HBM limit)
  std::string reference_label;
  bool log_y = false;
};

struct LineSeries {
  std::string name;
  std::vector<double> x, y;  // same length
};
struct Marker {
  double x = 0;
  std::string label;
};
struct Band {
  double x0 = 0, x1 = 0;
  std::string label;
};
struct LineChartData {
  ChartSpec spec;
  std::vector<LineSeries> series;
  std::vector<Marker> markers;  // vertical lines (change points, checkpoint saves)
  std::vector<Band> bands;      // shaded x ranges (throttled periods)
  bool log_y = false;
  bool step = false;  // draw as a step function (series sampled as a state)
  // At most this many points per series are drawn (min/max per pixel bucket, so spikes stay
  // visible); the table keeps at most max_table_rows rows (evenly sampled).
  size_t max_points = 2000;
  size_t max_table_rows = 200;
};

struct GanttSpan {
  int row = 0;
  double start = 0, end = 0;
  std::string category;  // colour and legend entry (forward, backward, weight-grad, send/recv, idle)
  std::string label;     // tooltip
};
struct GanttChartData {
  ChartSpec spec;
  std::vector<std::string> rows;  // one per stage (or node)
  std::vector<GanttSpan> spans;
  std::vector<std::string> categories;  // legend order; spans of other categories use "other"
  // Beyond this many spans, neighbouring spans of one row narrower than a pixel are merged per
  // category (the row says data-aggregated), so 64 stages x 1,024 micro-batches stay small.
  size_t max_spans = 20000;
};

}  // namespace paratune
