// The paratune.runs.show/1 section: one run's figures, measured beside predicted with the
// prediction's error, its step time split into the breakdown's terms (measured and predicted
// stacks), its series over iterations, its findings and the files it was recorded from.
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "report/data_table.h"
#include "report/line_chart.h"
#include "report/runs_section.h"
#include "report/scale.h"
#include "report/sections.h"
#include "report/stacked_bar_chart.h"

namespace paratune {

namespace {

// The chart of the run's series i over iterations.
LineChartData RunSeriesChart(const JsonFields& f, const RunShowDocument& d, const std::string& id, size_t i) {
  const RunSeries& series = d.series[i];
  if (series.x.size() != series.y.size()) f.Fail(fmt::format("series[{}]", i), "has x and y of different lengths");
  LineChartData c;
  c.spec = {fmt::format("{}-series-{}", id, i),
            series.kind + " over iterations",
            fmt::format("{} of run {} per logged iteration.", series.kind, d.run.name),
            "iteration",
            series.kind,
            "",
            MetricUnit(d.metrics, series.kind)};
  c.series.push_back({series.kind, series.x, series.y});
  return c;
}

// The run's findings and the files it was recorded from, as tables.
std::string RunFindingsAndSources(const RunShowDocument& d) {
  std::string html;
  if (!d.findings.empty()) {
    DataTable t;
    t.columns = {"severity", "rule", "finding", "throughput lost"};
    t.numeric = {false, false, false, true};
    t.css_class = "findings";
    for (const RunFinding& x : d.findings)
      t.rows.push_back({x.severity, x.rule, x.title,
                        fmt::format("{:.1f}%", 100 * (std::isfinite(x.loss_fraction) ? x.loss_fraction : 0))});
    html += "<h3>Findings</h3>\n" + RenderTable(t);
  }
  DataTable t;
  t.columns = {"file", "schema", "sha256", "recorded (UTC)"};
  t.css_class = "sources";
  for (const RunSource& x : d.sources) t.rows.push_back({x.path, x.schema, x.sha256.substr(0, 16), x.recorded_utc});
  html += "<h3>Recorded from</h3>\n" + RenderTable(t);
  return html;
}

// "Run NAME: MODEL on CLUSTER with LAYOUT, recorded WHEN; software S; tags k=v, ...".
std::string RunHeadline(const JsonFields& f, const RunShowDocument& d) {
  const RunSummary& r = d.run;
  std::string tags;
  for (const auto& [k, v] : r.tags) tags += (tags.empty() ? "" : ", ") + k + "=" + v;
  return Paragraph(fmt::format("Run {}: {} on {}{}, recorded {}{}{}.", r.name, r.model, r.cluster,
                               d.layout.is_object() ? " with " + LayoutLabel(JsonView(f, d.layout, "layout")) : "",
                               r.created_utc, r.software.empty() ? "" : "; software " + r.software,
                               tags.empty() ? "" : "; tags " + tags));
}

}  // namespace

std::string RenderRunShowSection(const ReportInput& in) {
  const JsonFields f(in.doc, in.path);
  const RunShowDocument d = ReadRunShow(in.doc, in.path);
  const std::string id = ChartId(in.path, "run-" + d.run.name);
  std::string html = RunHeadline(f, d);

  DataTable figures;
  figures.columns = {"metric", "measured", "predicted", "prediction error", "what it is"};
  figures.numeric = {false, true, true, true, false};
  figures.css_class = "run-figures";
  BarChartData terms;
  terms.spec = {id + "-breakdown",
                "Step time by term",
                "The step time split into its terms, measured beside predicted.",
                "",
                "time per step",
                "",
                "s"};
  terms.categories = {"measured", "predicted"};
  for (const RegistryMetric& m : d.metrics) {
    const MeasuredPredicted x = d.run.Figure(m.name);
    const double a = x.measured, p = x.predicted;
    if (!std::isfinite(a) && !std::isfinite(p)) continue;
    figures.rows.push_back(
        {m.name, std::isfinite(a) ? FormatValue(a, m.unit) : "", std::isfinite(p) ? FormatValue(p, m.unit) : "",
         std::isfinite(a) && std::isfinite(p) && a != 0 ? fmt::format("{:+.1f}%", 100 * (p / a - 1)) : "",
         m.description});
    if (m.step_term)
      terms.series.push_back(
          {m.name, {std::isfinite(a) ? std::max(a, 0.0) : 0, std::isfinite(p) ? std::max(p, 0.0) : 0}});
  }
  if (!terms.series.empty()) html += RenderStackedBarChart(terms);
  html += "<h3>Figures</h3>\n" + RenderTable(figures);
  for (size_t i = 0; i < d.series.size(); ++i) html += RenderLineChart(RunSeriesChart(f, d, id, i));
  html += RunFindingsAndSources(d);
  return html;
}

}  // namespace paratune
