// The paratune.diagnose/1 section: the findings ranked by the share of throughput each costs
// (a bar per finding), and the table with severity, evidence and fix.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "report/bar_chart.h"
#include "report/data_table.h"
#include "report/line_chart.h"
#include "report/scale.h"
#include "report/sections.h"
#include "util/timestamp.h"

namespace paratune {

namespace {

// The numbers of the array at path, a null as NaN.
std::vector<double> DiagnoseNumbers(const JsonFields& f, const std::string& path) {
  std::vector<double> v;
  const nlohmann::json& a = f.Array(path);
  for (size_t k = 0; k < a.size(); ++k) v.push_back(a[k].is_null() ? NAN : f.Number(fmt::format("{}[{}]", path, k)));
  return v;
}

// The findings ranked: a bar chart of the throughput each costs and the table with severity and fix.
std::string DiagnoseFindingsHtml(const JsonFields& f, const std::string& id, const nlohmann::json& findings) {
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
    const JsonView fi(f, findings[i], fmt::format("findings[{}]", i));
    const double l = fi.NumberOr("loss_fraction", 0);
    loss.categories.push_back(fmt::format("{}. {}", i + 1, fi.String("rule")));
    loss.series[0].values.push_back(l);
    t.rows.push_back({fmt::format("{}", i + 1), fi.String("severity"), fi.String("rule"), fi.StringOr("title", ""),
                      fmt::format("{:.1f}%", 100 * l), fi.StringOr("fix", "")});
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
FindingMarks FindingMarksOf(const JsonFields& f, const nlohmann::json& findings) {
  FindingMarks marks;
  for (size_t i = 0; i < findings.size(); ++i) {
    const JsonView fi(f, findings[i], fmt::format("findings[{}]", i));
    const std::string rule = fi.String("rule");
    const nlohmann::json* where = fi.Find("where");
    if (!where || !where->is_object()) continue;
    if (rule == "throughput_change_point" && where->contains("iterations")) {
      std::string log;
      if (where->contains("lines") && (*where)["lines"].is_array() && !(*where)["lines"].empty()) {
        log = f.String(fmt::format("findings[{}].where.lines[0]", i));
        log = log.substr(0, log.rfind(':'));
      }
      for (size_t k = 0; k < (*where)["iterations"].size(); ++k)
        marks.change_iterations.push_back({log, f.Number(fmt::format("findings[{}].where.iterations[{}]", i, k))});
    }
    if ((rule == "thermal_throttling" || rule == "power_throttling") && where->contains("time_ranges"))
      for (size_t k = 0; k < (*where)["time_ranges"].size(); ++k) {
        const std::string a = f.String(fmt::format("findings[{}].where.time_ranges[{}][0]", i, k));
        const std::string b = f.String(fmt::format("findings[{}].where.time_ranges[{}][1]", i, k));
        const auto ta = ParseTimestamp(a), tb = ParseTimestamp(b);
        if (!ta || !tb) f.Fail(fmt::format("findings[{}].where.time_ranges[{}]", i, k), "is not a pair of timestamps");
        marks.throttled.push_back({*ta, *tb});
      }
  }
  return marks;
}

// A throughput chart per logged series, with the change points found and the checkpoint saves marked.
std::string DiagnoseThroughputCharts(const JsonFields& f, const std::string& id, const FindingMarks& marks) {
  std::string html;
  if (const nlohmann::json* tp = f.Find("series.throughput"); tp && tp->is_array()) {
    for (size_t i = 0; i < tp->size(); ++i) {
      const std::string p = fmt::format("series.throughput[{}]", i);
      const std::string quantity = f.String(p + ".quantity");
      LineChartData c;
      c.spec = {fmt::format("{}-throughput-{}", id, i),
                "Throughput over iterations",
                fmt::format("{} of {} per iteration, with the change points found and the checkpoint saves marked.",
                            quantity, f.String(p + ".path")),
                "iteration",
                quantity,
                "",
                ""};
      c.series.push_back({quantity, DiagnoseNumbers(f, p + ".iterations"), DiagnoseNumbers(f, p + ".values")});
      const std::string log = f.String(p + ".path");
      for (const auto& [in_log, it] : marks.change_iterations)
        if (in_log.empty() || in_log == log) c.markers.push_back({it, "change point"});
      for (double it : DiagnoseNumbers(f, p + ".save_iterations")) c.markers.push_back({it, "checkpoint save"});
      html += RenderLineChart(c);
    }
  }
  return html;
}

// Adds the GPU of telemetry series p to the clock and temperature charts, its time from t0, its
// missing values left out.
void AddTelemetryGpuSeries(const JsonFields& f, const std::string& p, double t0, LineChartData* clock,
                           LineChartData* temp) {
  std::vector<double> t = DiagnoseNumbers(f, p + ".time_s");
  for (double& x : t) x -= t0;
  const std::string name = fmt::format("GPU {}", static_cast<int64_t>(f.Number(p + ".gpu")));
  auto drop_nan = [&](const std::vector<double>& y) {
    LineSeries s{name, {}, {}};
    for (size_t k = 0; k < t.size() && k < y.size(); ++k)
      if (std::isfinite(y[k])) s.x.push_back(t[k]), s.y.push_back(y[k]);
    return s;
  };
  clock->series.push_back(drop_nan(DiagnoseNumbers(f, p + ".sm_clock_hz")));
  temp->series.push_back(drop_nan(DiagnoseNumbers(f, p + ".temperature_c")));
}

// The clock and temperature charts of the telemetry, the throttled ranges shaded.
std::string DiagnoseTelemetryCharts(const JsonFields& f, const std::string& id, const FindingMarks& marks) {
  std::string html;
  if (const nlohmann::json* tel = f.Find("series.telemetry"); tel && tel->is_array() && !tel->empty()) {
    // One clock chart and one temperature chart per telemetry file, a series per GPU; time in
    // seconds from the file's first sample.
    std::map<std::string, std::vector<size_t>> by_file;
    for (size_t i = 0; i < tel->size(); ++i)
      by_file[f.String(fmt::format("series.telemetry[{}].path", i))].push_back(i);
    int n = 0;
    for (const auto& [path, idx] : by_file) {
      double t0 = INFINITY;
      for (size_t i : idx)
        for (double t : DiagnoseNumbers(f, fmt::format("series.telemetry[{}].time_s", i))) t0 = std::min(t0, t);
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
      for (size_t i : idx) AddTelemetryGpuSeries(f, fmt::format("series.telemetry[{}]", i), t0, &clock, &temp);
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
  const JsonFields f(in.doc, in.path);
  const std::string id = ChartId(in.path, "diagnose");
  const nlohmann::json& findings = f.Array("findings");
  const nlohmann::json* inputs = f.Find("inputs");
  std::string html =
      Paragraph(fmt::format("{} finding{} over {} input file{}.", findings.size(), findings.size() == 1 ? "" : "s",
                            inputs && inputs->is_array() ? inputs->size() : 0,
                            inputs && inputs->is_array() && inputs->size() == 1 ? "" : "s"));
  html += DiagnoseFindingsHtml(f, id, findings);
  const FindingMarks marks = FindingMarksOf(f, findings);
  html += DiagnoseThroughputCharts(f, id, marks);
  html += DiagnoseTelemetryCharts(f, id, marks);
  return html;
}

}  // namespace paratune
