// The paratune.runs.list/1 section: the registry's runs as a trend (tokens/s per GPU and MFU of
// each run over the time it was recorded, one series per cluster and model) and a table of every
// run with its headline figures, measured beside predicted.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "report/data_table.h"
#include "report/line_chart.h"
#include "report/runs_section.h"
#include "report/scale.h"
#include "report/sections.h"
#include "util/timestamp.h"

namespace paratune {

namespace {

// The headline metrics (not the step-time terms) any run has, in the registry's order.
std::vector<const RegistryMetric*> ShownRunMetrics(const RunsListDocument& d) {
  std::vector<const RegistryMetric*> shown;
  for (const RegistryMetric& m : d.metrics) {
    if (m.step_term) continue;
    for (const RunSummary& r : d.runs) {
      const MeasuredPredicted f = r.Figure(m.name);
      if (std::isfinite(f.measured) || std::isfinite(f.predicted)) {
        shown.push_back(&m);
        break;
      }
    }
  }
  return shown;
}

// A trend chart: its metric, the suffix of its id and its title.
struct RunTrend {
  const char* metric;
  const char* id;
  const char* title;
};

// The trend of one metric over the runs (newest first, recorded at when), a series per cluster
// and model; "" when no run shows the metric.
std::string RunTrendChart(const std::string& id, const RunTrend& trend, const std::vector<const RegistryMetric*>& shown,
                          const std::vector<RunSummary>& runs, const std::vector<double>& when, double t0) {
  const std::string metric = trend.metric;
  const RegistryMetric* m = nullptr;
  for (const RegistryMetric* s : shown)
    if (s->name == metric) m = s;
  if (!m) return "";
  std::map<std::string, LineSeries> by_scope;
  for (size_t k = runs.size(); k-- > 0;) {  // oldest first
    const MeasuredPredicted f = runs[k].Figure(metric);
    const double v = std::isfinite(f.measured) ? f.measured : f.predicted;
    if (!std::isfinite(v)) continue;
    const std::string scope = runs[k].cluster + " · " + runs[k].model;
    LineSeries& s = by_scope[scope];
    s.name = scope;
    s.x.push_back(when[k] - t0);
    s.y.push_back(v);
  }
  LineChartData c;
  c.spec = {fmt::format("{}-trend-{}", id, trend.id),
            trend.title,
            fmt::format("{} of each run (measured, else predicted) against the time it was recorded, since {}; one "
                        "series per cluster and model.",
                        metric, std::isfinite(t0) ? FormatTimestamp(t0) : "the first run"),
            "time since the first run",
            metric,
            "s",
            m->unit};
  for (auto& entry : by_scope) {
    const auto& s = entry.second;  // not a structured binding: clang 14 cannot capture one in a lambda
    // Runs recorded in the same second would draw a vertical segment; the table lists them.
    std::vector<size_t> order(s.x.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s.x[a] < s.x[b]; });
    LineSeries sorted{s.name, {}, {}};
    for (size_t i : order) sorted.x.push_back(s.x[i]), sorted.y.push_back(s.y[i]);
    c.series.push_back(std::move(sorted));
  }
  return RenderLineChart(c);
}

// The table of every run with its headline figures, measured beside predicted.
std::string RunsListTable(const std::vector<const RegistryMetric*>& shown, const std::vector<RunSummary>& runs) {
  DataTable t;
  t.columns = {"run", "recorded (UTC)", "cluster", "model", "software", "tags"};
  t.numeric = {false, false, false, false, false, false};
  for (const RegistryMetric* m : shown) {
    t.columns.push_back(m->name + " measured");
    t.columns.push_back("predicted");
    t.numeric.push_back(true);
    t.numeric.push_back(true);
  }
  t.css_class = "runs";
  for (const RunSummary& r : runs) {
    std::string tags;
    for (const auto& [k, v] : r.tags) tags += (tags.empty() ? "" : " ") + k + "=" + v;
    std::vector<std::string> row = {r.name, r.created_utc, r.cluster, r.model, r.software, tags};
    for (const RegistryMetric* m : shown) {
      const MeasuredPredicted f = r.Figure(m->name);
      for (const double v : {f.measured, f.predicted}) row.push_back(std::isfinite(v) ? FormatValue(v, m->unit) : "");
    }
    t.rows.push_back(std::move(row));
  }
  return "<h3>Runs</h3>\n" + RenderTable(t);
}

}  // namespace

std::string RenderRunsListSection(const ReportInput& in) {
  const JsonFields f(in.doc, in.path);
  const RunsListDocument d = ReadRunsList(in.doc, in.path);
  const std::string id = ChartId(in.path, "runs");
  const size_t n = d.runs.size();
  // `total` (the runs that matched, of which the list holds the newest) is absent from older files.
  const int64_t total = d.total == RunsListDocument::kTotalAbsent ? static_cast<int64_t>(n) : d.total;
  if (total < static_cast<int64_t>(n))
    f.Fail("total", fmt::format("must be a whole number of runs, at least the {} listed", n));
  std::string html =
      total > static_cast<int64_t>(n)
          ? Paragraph(fmt::format("{} of {} runs, newest first (runs list --limit shows more).", n, total))
          : Paragraph(fmt::format("{} run{}, newest first.", n, n == 1 ? "" : "s"));
  const std::vector<const RegistryMetric*> shown = ShownRunMetrics(d);

  // Trends: oldest first, x in seconds since the first run; measured where recorded, else the
  // prediction, and the table says which.
  std::vector<double> when(n, NAN);
  double t0 = INFINITY;
  for (size_t i = 0; i < n; ++i) {
    std::string stamp = d.runs[i].created_utc;
    if (!stamp.empty() && stamp.back() == 'Z') stamp.pop_back();  // the UTC designator (ISO 8601)
    const auto t = ParseTimestamp(stamp);
    if (!t) f.Fail(fmt::format("runs[{}].created_utc", i), "is not an ISO 8601 timestamp");
    when[i] = *t;
    t0 = std::min(t0, *t);
  }
  for (const RunTrend& trend :
       {RunTrend{"tokens_per_s_per_gpu", "tokens", "Tokens/s per GPU by run"}, RunTrend{"mfu", "mfu", "MFU by run"}})
    html += RunTrendChart(id, trend, shown, d.runs, when, t0);
  html += RunsListTable(shown, d.runs);
  return html;
}

}  // namespace paratune
