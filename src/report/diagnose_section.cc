// The paratune.diagnose/1 section: the findings ranked by the share of throughput each costs
// (a bar per finding), and the table with severity, evidence and fix; the throughput and
// telemetry series with the findings marked. The document is read typed
// (diagnose/diagnose_json.h).
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "diagnose/diagnose_json.h"
#include "report/bar_chart.h"
#include "report/data_table.h"
#include "report/line_chart.h"
#include "report/scale.h"
#include "report/sections.h"

namespace paratune {

namespace {

// The findings ranked: a bar chart of the throughput each costs and the table with severity and fix.
std::string DiagnoseFindingsHtml(const std::string& id, const std::vector<Finding>& findings) {
  BarChartData loss;
  loss.spec = {id + "-findings",
               "Findings by throughput lost",
               "The estimated share of throughput each finding costs, in ranked order.",
               "finding",
               "throughput lost",
               "",
               "fraction"};
  loss.series = {{"throughput lost", {}}};
  DataTable t;
  t.columns = {"#", "severity", "rule", "finding", "throughput lost", "fix"};
  t.numeric = {true, false, false, false, true, false};
  t.css_class = "findings";
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& fi = findings[i];
    const double l = std::isfinite(fi.loss_fraction) ? fi.loss_fraction : 0;
    loss.categories.push_back(fmt::format("{}. {}", i + 1, fi.rule));
    loss.series[0].values.push_back(l);
    t.rows.push_back({fmt::format("{}", i + 1), kSeverityNames.Name(fi.severity), fi.rule, fi.title,
                      fmt::format("{:.1f}%", 100 * l), fi.fix});
  }
  std::string html = RenderBarChart(loss);
  html += "<h3>Findings</h3>\n" + RenderTable(t);
  return html;
}

// Where the findings sit: change points over the logged throughput, throttled ranges over the
// clocks and temperatures.
struct FindingMarks {
  // Change points by the log they were found in ("path:line" of the finding's lines; all logs
  // when it names none).
  std::vector<std::pair<std::string, double>> change_iterations;
  std::vector<std::pair<double, double>> throttled;  // epoch seconds
};

// The change points and throttled ranges of the findings.
FindingMarks FindingMarksOf(const std::vector<Finding>& findings) {
  FindingMarks marks;
  for (const Finding& fi : findings) {
    const FindingWhere& w = fi.where;
    if (fi.rule == "throughput_change_point") {
      std::string log;
      if (!w.lines.empty()) log = w.lines[0].substr(0, w.lines[0].rfind(':'));
      for (int64_t it : w.iterations) marks.change_iterations.push_back({log, static_cast<double>(it)});
    }
    if (fi.rule == "thermal_throttling" || fi.rule == "power_throttling")
      for (const auto& range : w.time_ranges_s) marks.throttled.push_back(range);
  }
  return marks;
}

// A throughput chart per logged series, with the change points found and the checkpoint saves marked.
std::string DiagnoseThroughputCharts(const DiagnosisSeries& series, const std::string& id, const FindingMarks& marks) {
  std::string html;
  for (size_t i = 0; i < series.throughput.size(); ++i) {
    const ThroughputSeries& tp = series.throughput[i];
    LineChartData c;
    c.spec = {fmt::format("{}-throughput-{}", id, i),
              "Throughput over iterations",
              fmt::format("{} of {} per iteration, with the change points found and the checkpoint saves marked.",
                          tp.quantity, tp.path),
              "iteration",
              tp.quantity,
              "",
              ""};
    c.series.push_back({tp.quantity, tp.iterations, tp.values});
    for (const auto& [in_log, it] : marks.change_iterations)
      if (in_log.empty() || in_log == tp.path) c.markers.push_back({it, "change point"});
    for (double it : tp.save_iterations) c.markers.push_back({it, "checkpoint save"});
    html += RenderLineChart(c);
  }
  return html;
}

// Adds the GPU of telemetry series p to the clock and temperature charts, its time from t0, its
// missing values left out.
void AddTelemetryGpuSeries(const TelemetrySeries& p, double t0, LineChartData* clock, LineChartData* temp) {
  std::vector<double> t = p.time_s;
  for (double& x : t) x -= t0;
  const std::string name = fmt::format("GPU {}", p.gpu);
  auto drop_nan = [&](const std::vector<double>& y) {
    LineSeries s{name, {}, {}};
    for (size_t k = 0; k < t.size() && k < y.size(); ++k)
      if (std::isfinite(y[k])) s.x.push_back(t[k]), s.y.push_back(y[k]);
    return s;
  };
  clock->series.push_back(drop_nan(p.sm_clock_hz));
  temp->series.push_back(drop_nan(p.temperature_c));
}

// The clock and temperature charts of the telemetry, the throttled ranges shaded.
std::string DiagnoseTelemetryCharts(const DiagnosisSeries& series, const std::string& id, const FindingMarks& marks) {
  std::string html;
  if (const std::vector<TelemetrySeries>& tel = series.telemetry; !tel.empty()) {
    // One clock chart and one temperature chart per telemetry file, a series per GPU; time in
    // seconds from the file's first sample.
    std::map<std::string, std::vector<size_t>> by_file;
    for (size_t i = 0; i < tel.size(); ++i) by_file[tel[i].path].push_back(i);
    int n = 0;
    for (const auto& [path, idx] : by_file) {
      double t0 = INFINITY;
      for (size_t i : idx)
        for (double t : tel[i].time_s) t0 = std::min(t0, t);
      LineChartData clock, temp;
      clock.spec = {fmt::format("{}-clock-{}", id, n),
                    "SM clock per GPU",
                    fmt::format("SM clock of each GPU in {}, throttled ranges shaded.", path),
                    "time",
                    "SM clock",
                    "s",
                    "Hz"};
      temp.spec = {fmt::format("{}-temperature-{}", id, n),
                   "Temperature per GPU",
                   fmt::format("GPU temperature of each GPU in {}, throttled ranges shaded.", path),
                   "time",
                   "temperature (C)",
                   "s",
                   ""};
      for (size_t i : idx) AddTelemetryGpuSeries(tel[i], t0, &clock, &temp);
      for (const auto& [a, b] : marks.throttled) {
        clock.bands.push_back({a - t0, b - t0, "throttled"});
        temp.bands.push_back({a - t0, b - t0, "throttled"});
      }
      html += RenderLineChart(clock) + RenderLineChart(temp);
      ++n;
    }
  }
  return html;
}

}  // namespace

std::string RenderDiagnoseSection(const ReportInput& in) {
  const Diagnosis d = DiagnosisFromJson(in.doc, in.path);
  const std::string id = ChartId(in.path, "diagnose");
  const size_t n = d.findings.size(), inputs = d.inputs.size();
  std::string html = Paragraph(
      fmt::format("{} finding{} over {} input file{}.", n, n == 1 ? "" : "s", inputs, inputs == 1 ? "" : "s"));
  html += DiagnoseFindingsHtml(id, d.findings);
  const FindingMarks marks = FindingMarksOf(d.findings);
  html += DiagnoseThroughputCharts(d.series, id, marks);
  html += DiagnoseTelemetryCharts(d.series, id, marks);
  return html;
}

}  // namespace paratune
