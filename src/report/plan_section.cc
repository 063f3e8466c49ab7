// The paratune.plan/1 section: the ranked layouts' tokens/s per GPU and MFU, their peak memory
// against the planner's HBM limit, the explanation of #1 against #2, and the winner's estimate
// charts.
#include <fmt/format.h>

#include "report/bar_chart.h"
#include "report/data_table.h"
#include "report/scale.h"
#include "report/sections.h"
#include "report/svg.h"
#include "plan/plan_json.h"

namespace paratune {

namespace {

// Adds ranked layout i to the throughput, MFU and memory charts and to the table.
void AddPlanRankedLayout(const Estimate& e, size_t i, BarChartData* tps, BarChartData* mfu, BarChartData* mem,
                         DataTable* t) {
  // Short in the charts (the table below gives the whole layout).
  const std::string label = fmt::format("#{} tp{} pp{} dp{}", i + 1, e.layout.tp, e.layout.pp, e.layout.dp);
  tps->categories.push_back(label);
  mfu->categories.push_back(label);
  mem->categories.push_back(label);
  tps->series[0].values.push_back(e.tokens_per_s_per_gpu);
  mfu->series[0].values.push_back(e.mfu);
  mem->series[0].values.push_back(e.peak_memory_bytes);
  t->rows.push_back({fmt::format("{}", i + 1), LayoutLabel(e.layout, e.training), FormatValue(e.step_time_s, "s"),
                     fmt::format("{:.0f}", e.tokens_per_s_per_gpu), fmt::format("{:.1f}%", 100 * e.mfu),
                     FormatValue(e.peak_memory_bytes, "B"), fmt::format("{:.1f}%", 100 * e.comm_share),
                     fmt::format("{:.1f}%", 100 * e.bubble_rate)});
}

// The ranked layouts: throughput, MFU and peak memory (against the limit) charts, and their table.
std::string PlanRankedHtml(const PlanDocument& d, const std::string& id) {
  BarChartData tps, mfu, mem;
  tps.spec = {id + "-throughput",
              "Throughput of the ranked layouts",
              "Tokens per second per GPU of each listed layout, best first.",
              "layout",
              "tokens/s per GPU",
              "",
              ""};
  mfu.spec = {id + "-mfu",
              "MFU of the ranked layouts",
              "Model FLOP utilisation of each listed layout (its own precision's peak).",
              "layout",
              "MFU",
              "",
              "fraction"};
  mem.spec = {id + "-memory",
              "Peak memory of the ranked layouts",
              "Peak allocated memory per GPU of each listed layout against the planner's limit.",
              "layout",
              "peak memory",
              "",
              "B"};
  tps.series = {{"tokens/s per GPU", {}}};
  mfu.series = {{"MFU", {}}};
  mem.series = {{"peak memory", {}}};
  DataTable t;
  t.columns = {"rank", "layout", "step time", "tokens/s per GPU", "MFU", "peak memory", "exposed comm", "bubble"};
  t.numeric = {true, false, true, true, true, true, true, true};
  t.css_class = "ranked";
  for (size_t i = 0; i < d.result.ranked.size(); ++i) AddPlanRankedLayout(d.result.ranked[i], i, &tps, &mfu, &mem, &t);
  const double limit = d.result.memory_limit_bytes;
  if (limit > 0) {
    mem.reference = limit;
    mem.reference_label = "limit (HBM less headroom)";
  }
  std::string html = RenderBarChart(tps) + RenderBarChart(mfu) + RenderBarChart(mem);
  html += "<h3>Ranked layouts</h3>\n" + RenderTable(t);
  return html;
}

// The explanation of #1 against #2, when the plan has one; else "".
std::string PlanExplanationHtml(const PlanDocument& d) {
  if (d.result.explanation.empty()) return "";
  std::string html = "<h3>Why #1 wins</h3>\n<ul class=\"explanation\">\n";
  for (const std::string& line : d.result.explanation) html += "<li>" + XmlEscape(line) + "</li>\n";
  return html + "</ul>\n";
}

// The what-if sweep's chart and table (the best layout per value of the knob), when the plan has one; else "".
std::string PlanSweepHtml(const PlanDocument& d, const std::string& id) {
  if (!d.sweep) return "";
  const std::string knob = kSweepKnobNames.Name(d.sweep->knob);
  BarChartData b;
  b.spec = {id + "-sweep",
            fmt::format("What-if: throughput against {}", knob),
            fmt::format("The best layout's tokens/s per GPU for each value of {} (every other dimension searched); "
                        "a value with no fitting layout shows no bar.",
                        knob),
            knob,
            "tokens/s per GPU",
            "",
            ""};
  b.series = {{"tokens/s per GPU", {}}};
  DataTable st;
  st.columns = {knob, "tokens/s per GPU", "MFU", "step time", "layout"};
  st.numeric = {false, true, true, true, false};
  st.css_class = "sweep";
  for (const SweepPoint& pt : d.sweep->points) {
    if (!pt.fits) {
      st.rows.push_back({pt.value, "does not fit", "", "", pt.reason});
      continue;
    }
    const Estimate& e = pt.best;
    b.categories.push_back(pt.value);
    b.series[0].values.push_back(e.tokens_per_s_per_gpu);
    st.rows.push_back({pt.value, fmt::format("{:.0f}", e.tokens_per_s_per_gpu), fmt::format("{:.1f}%", 100 * e.mfu),
                       FormatValue(e.step_time_s, "s"), LayoutLabel(e.layout, e.training)});
  }
  return RenderBarChart(b) + RenderTable(st);
}

}  // namespace

std::string RenderPlanSection(const ReportInput& in) {
  const PlanDocument d = PlanFromJson(in.doc, in.path);
  const std::string id = ChartId(in.path, "plan");
  std::string html = Paragraph(fmt::format(
      "{} on {} GPUs of {}, sequence {}, global batch {}: {} layouts passed the rules, {} estimated, {} fit; the best "
      "{} below.",
      d.model, d.gpus, d.gpu, d.seq_len, d.global_batch, d.result.candidates, d.result.estimated, d.result.fitting,
      d.result.ranked.size()));
  html += PlanRankedHtml(d, id);
  html += PlanExplanationHtml(d);
  html += PlanSweepHtml(d, id);
  html += "<h3>The winner</h3>\n" + EstimateCharts(d.winner, id + "-winner");
  return html;
}

}  // namespace paratune
