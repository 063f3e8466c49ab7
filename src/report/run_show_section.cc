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

// The chart of the run's series i (series[i]: kind, x and y) over iterations.
LineChartData RunSeriesChart(const JsonFields& f, const std::vector<RunMetric>& metrics, const std::string& id,
                             const std::string& name, size_t i) {
  const std::string p = fmt::format("series[{}]", i);
  const std::string kind = f.String(p + ".kind");
  LineChartData c;
  std::string unit;
  for (const RunMetric& m : metrics)
    if (m.name == kind) unit = m.unit;
  c.spec = {fmt::format("{}-series-{}", id, i),
            kind + " over iterations",
            fmt::format("{} of run {} per logged iteration.", kind, name),
            "iteration",
            kind,
            "",
            unit};
  LineSeries s{kind, {}, {}};
  const nlohmann::json& xs = f.Array(p + ".x");
  const nlohmann::json& ys = f.Array(p + ".y");
  if (xs.size() != ys.size()) f.Fail(p, "has x and y of different lengths");
  for (size_t k = 0; k < xs.size(); ++k) {
    s.x.push_back(f.Number(fmt::format("{}.x[{}]", p, k)));
    s.y.push_back(f.Number(fmt::format("{}.y[{}]", p, k)));
  }
  c.series.push_back(std::move(s));
  return c;
}

// The run's findings and the files it was recorded from, as tables.
std::string RunFindingsAndSources(const JsonFields& f, const JsonView& run) {
  std::string html;
  if (const nlohmann::json* fi = run.Find("findings"); fi && fi->is_array() && !fi->empty()) {
    DataTable t;
    t.columns = {"severity", "rule", "finding", "throughput lost"};
    t.numeric = {false, false, false, true};
    t.css_class = "findings";
    for (size_t i = 0; i < fi->size(); ++i) {
      const JsonView v(f, (*fi)[i], fmt::format("findings[{}]", i));
      t.rows.push_back({v.StringOr("severity", ""), v.String("rule"), v.StringOr("title", ""),
                        fmt::format("{:.1f}%", 100 * v.NumberOr("loss_fraction", 0))});
    }
    html += "<h3>Findings</h3>\n" + RenderTable(t);
  }
  if (const nlohmann::json* so = run.Find("sources"); so && so->is_array()) {
    DataTable t;
    t.columns = {"file", "schema", "sha256", "recorded (UTC)"};
    t.css_class = "sources";
    for (size_t i = 0; i < so->size(); ++i) {
      const JsonView v(f, (*so)[i], fmt::format("sources[{}]", i));
      t.rows.push_back({v.StringOr("path", ""), v.StringOr("schema", ""), v.StringOr("sha256", "").substr(0, 16),
                        v.StringOr("recorded_utc", "")});
    }
    html += "<h3>Recorded from</h3>\n" + RenderTable(t);
  }
  return html;
}

}  // namespace

std::string RenderRunShowSection(const ReportInput& in) {
  const JsonFields f(in.doc, in.path);
  const std::vector<RunMetric> metrics = RunMetrics(f);
  const JsonView run(f, in.doc, "");
  const std::string name = run.String("name");
  const std::string id = ChartId(in.path, "run-" + name);
  std::string tags;
  if (const nlohmann::json* tg = run.Find("tags"); tg && tg->is_object())
    for (const auto& [k, v] : tg->items())
      tags += (tags.empty() ? "" : ", ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  std::string html = Paragraph(fmt::format(
      "Run {}: {} on {}{}, recorded {}{}{}.", name, run.StringOr("model", "?"), run.StringOr("cluster", "?"),
      run.Find("layout") && run.Find("layout")->is_object() ? " with " + LayoutLabel(run.Child("layout")) : "",
      run.String("created_utc"), run.StringOr("software", "").empty() ? "" : "; software " + run.String("software"),
      tags.empty() ? "" : "; tags " + tags));

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
  for (const RunMetric& m : metrics) {
    const double a = RunFigure(run, m.name, "measured"), p = RunFigure(run, m.name, "predicted");
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

  if (const nlohmann::json* series = run.Find("series"); series && series->is_array()) {
    for (size_t i = 0; i < series->size(); ++i) {
      html += RenderLineChart(RunSeriesChart(f, metrics, id, name, i));
    }
  }
  html += RunFindingsAndSources(f, run);
  return html;
}

}  // namespace paratune
