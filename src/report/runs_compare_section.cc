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
std::string MovedTerms(const RunsCompareDocument& d, const std::string& id) {
  if (!d.breakdown)
    return Paragraph("No breakdown: the two runs have no step time on a common side (measured or predicted).");
  const ComparedBreakdown& br = *d.breakdown;
  BarChartData moved;
  moved.spec = {
      id + "-terms",
      "Which term moved",
      fmt::format("The change of each step-time term ({}), b minus a, largest first; the step time changed by {}.",
                  registry_fields::kSideNames.Name(br.measured), FormatValue(br.step_time_delta_s, "s")),
      "term",
      "change per step",
      "",
      "s"};
  moved.series = {{"b - a", {}}};
  DataTable t;
  t.columns = {"term", "b - a", "share of the step-time change"};
  t.numeric = {false, true, true};
  t.css_class = "terms";
  for (const TermMoveEntry& term : br.terms) {
    moved.categories.push_back(term.metric);
    moved.series[0].values.push_back(term.delta_s);
    t.rows.push_back({term.metric, FormatValue(term.delta_s, "s"),
                      std::isfinite(term.share) ? fmt::format("{:.1f}%", 100 * term.share) : ""});
  }
  return RenderBarChart(moved) + RenderTable(t);
}

// Every figure side by side with its difference, marked better or worse.
std::string FigureDiffs(const RunsCompareDocument& d) {
  DataTable t;
  t.columns = {"metric", "side", "a", "b", "b - a", "relative", ""};
  t.numeric = {false, false, true, true, true, true, false};
  t.css_class = "figure-diffs";
  for (const FigureComparison& x : d.figures) {
    const std::string& unit = x.unit;
    const double va = x.a, vb = x.b, rel = x.rel_diff;
    std::string verdict;
    if (std::isfinite(va) && std::isfinite(vb) && va != vb)
      verdict = (vb > va) == (x.better == Better::kHigher) ? "better" : "worse";
    t.rows.push_back({x.metric, registry_fields::kSideNames.Name(x.measured),
                      std::isfinite(va) ? FormatValue(va, unit) : "", std::isfinite(vb) ? FormatValue(vb, unit) : "",
                      std::isfinite(va) && std::isfinite(vb) ? FormatValue(vb - va, unit) : "",
                      std::isfinite(rel) ? fmt::format("{:+.1f}%", 100 * rel) : "", verdict});
  }
  return "<h3>Figures</h3>\n" + RenderTable(t);
}

}  // namespace

std::string RenderRunsCompareSection(const ReportInput& in) {
  const RunsCompareDocument d = ReadRunsCompare(in.doc, in.path);
  const std::string id = ChartId(in.path, "compare");
  std::string html = Paragraph(d.baseline_scope.empty()
                                   ? fmt::format("Run {} against run {}.", d.b, d.a)
                                   : fmt::format("Run {} against {}, the baseline of {}.", d.b, d.a, d.baseline_scope));
  html += MovedTerms(d, id);
  html += FigureDiffs(d);
  return html;
}

}  // namespace paratune
