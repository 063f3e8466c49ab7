// The paratune.plan/1 section: the ranked layouts' tokens/s per GPU and MFU, their peak memory
// against the planner's HBM limit, the explanation of #1 against #2, and the winner's estimate
// charts.
#include <fmt/format.h>

#include "report/bar_chart.h"
#include "report/data_table.h"
#include "report/scale.h"
#include "report/sections.h"
#include "report/svg.h"
#include "step/estimate_json.h"

namespace paratune {

namespace {

// Adds ranked layout i to the throughput, MFU and memory charts and to the table.
void AddPlanRankedLayout(const JsonView& r, size_t i, BarChartData* tps, BarChartData* mfu, BarChartData* mem,
                         DataTable* t) {
  // Short in the charts (the table below gives the whole layout).
  const JsonView l = r.Child("layout");
  const std::string label = fmt::format("#{} tp{} pp{} dp{}", static_cast<int64_t>(r.NumberOr("rank", double(i + 1))),
                                        l.NumberOr("tp", 1), l.NumberOr("pp", 1), l.NumberOr("dp", 1));
  tps->categories.push_back(label);
  mfu->categories.push_back(label);
  mem->categories.push_back(label);
  tps->series[0].values.push_back(r.Number("tokens_per_s_per_gpu"));
  mfu->series[0].values.push_back(r.Number("mfu"));
  mem->series[0].values.push_back(r.NumberOr("peak_memory_bytes", 0));
  t->rows.push_back(
      {fmt::format("{}", static_cast<int64_t>(r.NumberOr("rank", double(i + 1)))), LayoutLabel(r.Child("layout")),
       FormatValue(r.Number("step_time_s"), "s"), fmt::format("{:.0f}", r.Number("tokens_per_s_per_gpu")),
       fmt::format("{:.1f}%", 100 * r.Number("mfu")), FormatValue(r.NumberOr("peak_memory_bytes", 0), "B"),
       fmt::format("{:.1f}%", 100 * r.NumberOr("comm_share", 0)),
       fmt::format("{:.1f}%", 100 * r.NumberOr("bubble_rate", 0))});
}

// The ranked layouts: throughput, MFU and peak memory (against the limit) charts, and their table.
std::string PlanRankedHtml(const JsonFields& f, const std::string& id, const nlohmann::json& ranked) {
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
  for (size_t i = 0; i < ranked.size(); ++i)
    AddPlanRankedLayout(JsonView(f, ranked[i], fmt::format("ranked[{}]", i)), i, &tps, &mfu, &mem, &t);
  const double limit = f.NumberOr("search.memory_limit_bytes", 0);
  if (limit > 0) {
    mem.reference = limit;
    mem.reference_label = "limit (HBM less headroom)";
  }
  std::string html = RenderBarChart(tps) + RenderBarChart(mfu) + RenderBarChart(mem);
  html += "<h3>Ranked layouts</h3>\n" + RenderTable(t);
  return html;
}

// The explanation of #1 against #2, when the plan has one; else "".
std::string PlanExplanationHtml(const JsonFields& f) {
  std::string html;
  if (const nlohmann::json* ex = f.Find("explanation"); ex && ex->is_array() && !ex->empty()) {
    html += "<h3>Why #1 wins</h3>\n<ul class=\"explanation\">\n";
    for (const auto& line : *ex)
      if (line.is_string()) html += "<li>" + XmlEscape(line.get<std::string>()) + "</li>\n";
    html += "</ul>\n";
  }
  return html;
}

// The what-if sweep's chart and table (the best layout per value of the knob), when the plan has one; else "".
std::string PlanSweepHtml(const JsonFields& f, const std::string& id) {
  const nlohmann::json* sw = f.Find("sweep");
  if (!sw || !sw->is_object()) return "";
  const std::string knob = f.String("sweep.knob");
  const nlohmann::json& points = f.Array("sweep.points");
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
  for (size_t i = 0; i < points.size(); ++i) {
    const JsonView pt(f, points[i], fmt::format("sweep.points[{}]", i));
    const std::string value = pt.String("value");
    const nlohmann::json* fits = pt.Find("fits");
    if (!fits || !fits->is_boolean()) f.Fail(fmt::format("sweep.points[{}].fits", i), "is not true or false");
    if (!fits->get<bool>()) {
      st.rows.push_back({value, "does not fit", "", "", pt.StringOr("reason", "")});
      continue;
    }
    b.categories.push_back(value);
    b.series[0].values.push_back(pt.Number("tokens_per_s_per_gpu"));
    st.rows.push_back({value, fmt::format("{:.0f}", pt.Number("tokens_per_s_per_gpu")),
                       fmt::format("{:.1f}%", 100 * pt.Number("mfu")), FormatValue(pt.Number("step_time_s"), "s"),
                       LayoutLabel(pt.Child("layout"))});
  }
  return RenderBarChart(b) + RenderTable(st);
}

}  // namespace

std::string RenderPlanSection(const ReportInput& in) {
  const JsonFields f(in.doc, in.path);
  const std::string id = ChartId(in.path, "plan");
  const nlohmann::json& ranked = f.Array("ranked");
  std::string html = Paragraph(fmt::format(
      "{} on {} GPUs of {}, sequence {}, global batch {}: {} layouts passed the rules, {} estimated, {} fit; the best "
      "{} below.",
      f.StringOr("model.name", "model"), f.NumberOr("cluster.gpus", 0), f.StringOr("cluster.gpu", "?"),
      f.NumberOr("training.seq_len", 0), f.NumberOr("training.global_batch", 0), f.NumberOr("search.candidates", 0),
      f.NumberOr("search.estimated", 0), f.NumberOr("search.fitting", 0), ranked.size()));
  html += PlanRankedHtml(f, id, ranked);
  html += PlanExplanationHtml(f);
  html += PlanSweepHtml(f, id);
  if (const nlohmann::json* winner = f.Find("winner"))
    html += "<h3>The winner</h3>\n" + EstimateCharts(EstimateFromJson(JsonView(f, *winner, "winner")), id + "-winner");
  return html;
}

}  // namespace paratune
