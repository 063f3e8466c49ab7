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
std::vector<const RunMetric*> ShownRunMetrics(const JsonFields& f, const nlohmann::json& runs,
                                              const std::vector<RunMetric>& metrics) {
  std::vector<const RunMetric*> shown;
  for (const RunMetric& m : metrics) {
    if (m.step_term) continue;
    for (size_t i = 0; i < runs.size(); ++i) {
      const JsonView r(f, runs[i], fmt::format("runs[{}]", i));
      if (std::isfinite(RunFigure(r, m.name, "measured")) || std::isfinite(RunFigure(r, m.name, "predicted"))) {
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

// The trend of one metric over the runs (views, newest first, recorded at when), a series per
// cluster and model; "" when no run shows the metric.
std::string RunTrendChart(const std::string& id, const RunTrend& trend, const std::vector<const RunMetric*>& shown,
                          const std::vector<JsonView>& views, const std::vector<double>& when, double t0) {
  const std::string metric = trend.metric;
  const RunMetric* m = nullptr;
  for (const RunMetric* s : shown)
    if (s->name == metric) m = s;
  if (!m) return "";
  std::map<std::string, LineSeries> by_scope;
  for (size_t k = views.size(); k-- > 0;) {  // oldest first
    double v = RunFigure(views[k], metric, "measured");
    if (!std::isfinite(v)) v = RunFigure(views[k], metric, "predicted");
    if (!std::isfinite(v)) continue;
    const std::string scope = views[k].StringOr("cluster", "") + " · " + views[k].StringOr("model", "");
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
std::string RunsListTable(const std::vector<const RunMetric*>& shown, const std::vector<JsonView>& views) {
  DataTable t;
  t.columns = {"run", "recorded (UTC)", "cluster", "model", "software", "tags"};
  t.numeric = {false, false, false, false, false, false};
  for (const RunMetric* m : shown) {
    t.columns.push_back(m->name + " measured");
    t.columns.push_back("predicted");
    t.numeric.push_back(true);
    t.numeric.push_back(true);
  }
  t.css_class = "runs";
  for (const JsonView& r : views) {
    std::string tags;
    if (const nlohmann::json* tg = r.Find("tags"); tg && tg->is_object())
      for (const auto& [k, v] : tg->items())
        tags += (tags.empty() ? "" : " ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
    std::vector<std::string> row = {r.String("name"),        r.String("created_utc"),    r.StringOr("cluster", ""),
                                    r.StringOr("model", ""), r.StringOr("software", ""), tags};
    for (const RunMetric* m : shown)
      for (const char* side : {"measured", "predicted"}) {
        const double v = RunFigure(r, m->name, side);
        row.push_back(std::isfinite(v) ? FormatValue(v, m->unit) : "");
      }
    t.rows.push_back(std::move(row));
  }
  return "<h3>Runs</h3>\n" + RenderTable(t);
}

}  // namespace

std::string RenderRunsListSection(const ReportInput& in) {
  const JsonFields f(in.doc, in.path);
  const std::string id = ChartId(in.path, "runs");
  const std::vector<RunMetric> metrics = RunMetrics(f);
  const nlohmann::json& runs = f.Array("runs");
  // `total` (the runs that matched, of which the list holds the newest) is absent from older files.
  const double total = f.NumberOr("total", static_cast<double>(runs.size()));
  if (total < static_cast<double>(runs.size()) || total != std::floor(total) || total > 9.0e15)
    f.Fail("total", fmt::format("must be a whole number of runs, at least the {} listed", runs.size()));
  std::string html =
      total > static_cast<double>(runs.size())
          ? Paragraph(fmt::format("{} of {} runs, newest first (runs list --limit shows more).", runs.size(), total))
          : Paragraph(fmt::format("{} run{}, newest first.", runs.size(), runs.size() == 1 ? "" : "s"));
  const std::vector<const RunMetric*> shown = ShownRunMetrics(f, runs, metrics);

  // Trends: oldest first, x in seconds since the first run; measured where recorded, else the
  // prediction, and the table says which.
  std::vector<JsonView> views;
  views.reserve(runs.size());
  std::vector<double> when(runs.size(), NAN);
  double t0 = INFINITY;
  for (size_t i = 0; i < runs.size(); ++i) {
    views.emplace_back(f, runs[i], fmt::format("runs[{}]", i));
    std::string stamp = views.back().String("created_utc");
    if (!stamp.empty() && stamp.back() == 'Z') stamp.pop_back();  // the UTC designator (ISO 8601)
    const auto t = ParseTimestamp(stamp);
    if (!t) f.Fail(fmt::format("runs[{}].created_utc", i), "is not an ISO 8601 timestamp");
    when[i] = *t;
    t0 = std::min(t0, *t);
  }
  for (const RunTrend& trend :
       {RunTrend{"tokens_per_s_per_gpu", "tokens", "Tokens/s per GPU by run"}, RunTrend{"mfu", "mfu", "MFU by run"}})
    html += RunTrendChart(id, trend, shown, views, when, t0);
  html += RunsListTable(shown, views);
  return html;
}

}  // namespace paratune
