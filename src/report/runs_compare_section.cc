// The paratune.runs.compare/1 section: why run B differs from run A (or from its baseline): the
// step-time terms that moved, largest first, as bars of seconds per step, and every figure side
// by side with its difference, marked better or worse.
#include <cmath>

#include <fmt/format.h>

#include "report/bar_chart.h"
#include "report/data_table.h"
#include "report/runs_section.h"
#include "report/scale.h"
#include "report/sections.h"

namespace paratune {

namespace {

// The step-time terms that moved, b minus a, largest first: a bar chart and a table.
std::string MovedTerms(const JsonFields& f, const std::string& id) {
  if (const nlohmann::json* br = f.Find("breakdown"); br && br->is_object()) {
    const double delta = f.Number("breakdown.step_time_delta_s");
    BarChartData moved;
    moved.spec = {
        id + "-terms",
        "Which term moved",
        fmt::format("The change of each step-time term ({}), b minus a, largest first; the step time changed by {}.",
                    f.String("breakdown.side"), FormatValue(delta, "s")),
        "term",
        "change per step",
        "",
        "s"};
    moved.series = {{"b - a", {}}};
    DataTable t;
    t.columns = {"term", "b - a", "share of the step-time change"};
    t.numeric = {false, true, true};
    t.css_class = "terms";
    const nlohmann::json& terms = f.Array("breakdown.terms");
    for (size_t i = 0; i < terms.size(); ++i) {
      const JsonView v(f, terms[i], fmt::format("breakdown.terms[{}]", i));
      const double d = v.Number("delta_s"), share = v.NumberOr("share", NAN);
      moved.categories.push_back(v.String("metric"));
      moved.series[0].values.push_back(d);
      t.rows.push_back(
          {v.String("metric"), FormatValue(d, "s"), std::isfinite(share) ? fmt::format("{:.1f}%", 100 * share) : ""});
    }
    return RenderBarChart(moved) + RenderTable(t);
  }
  return Paragraph("No breakdown: the two runs have no step time on a common side (measured or predicted).");
}

}  // namespace

std::string RenderRunsCompareSection(const ReportInput& in) {
  const JsonFields f(in.doc, in.path);
  const std::vector<RunMetric> metrics = RunMetrics(f);
  const std::string a = f.String("a"), b = f.String("b");
  const std::string scope = f.StringOr("baseline_scope", "");
  const std::string id = ChartId(in.path, "compare");
  std::string html = Paragraph(scope.empty() ? fmt::format("Run {} against run {}.", b, a)
                                             : fmt::format("Run {} against {}, the baseline of {}.", b, a, scope));
  auto unit_of = [&](const std::string& metric) {
    for (const RunMetric& m : metrics)
      if (m.name == metric) return m.unit;
    return std::string();
  };
  html += MovedTerms(f, id);
  DataTable t;
  t.columns = {"metric", "side", "a", "b", "b - a", "relative", ""};
  t.numeric = {false, false, true, true, true, true, false};
  t.css_class = "figure-diffs";
  const nlohmann::json& figures = f.Array("figures");
  for (size_t i = 0; i < figures.size(); ++i) {
    const JsonView v(f, figures[i], fmt::format("figures[{}]", i));
    const std::string metric = v.String("metric"), unit = v.StringOr("unit", unit_of(metric));
    const double va = v.NumberOr("a", NAN), vb = v.NumberOr("b", NAN), rel = v.NumberOr("rel_diff", NAN);
    std::string verdict;
    if (std::isfinite(va) && std::isfinite(vb) && va != vb) {
      const bool higher = v.StringOr("better", "higher") == "higher";
      verdict = (vb > va) == higher ? "better" : "worse";
    }
    t.rows.push_back({metric, v.StringOr("side", ""), std::isfinite(va) ? FormatValue(va, unit) : "",
                      std::isfinite(vb) ? FormatValue(vb, unit) : "",
                      std::isfinite(va) && std::isfinite(vb) ? FormatValue(vb - va, unit) : "",
                      std::isfinite(rel) ? fmt::format("{:+.1f}%", 100 * rel) : "", verdict});
  }
  html += "<h3>Figures</h3>\n" + RenderTable(t);
  return html;
}

}  // namespace paratune
