// The paratune.estimate/1 section: the step-time terms stacked, memory per pipeline stage
// stacked by kind against the HBM capacity, the utilisation of each link class the step uses,
// and the collectives table (docs/json.md, docs/cost-model.md for the terms).
#include <fmt/format.h>

#include "report/bar_chart.h"
#include "report/data_table.h"
#include "report/scale.h"
#include "report/sections.h"
#include "report/stacked_bar_chart.h"
#include "report/svg.h"
#include "schema/memory_breakdown.h"
#include "schema/step_time.h"

namespace paratune {

namespace {

// Parts that are zero everywhere leave the stack and its legend (the table of the estimate
// still lists every term).
void DropEmptySeries(BarChartData* d) {
  std::erase_if(d->series, [](const BarSeries& s) {
    for (double v : s.values)
      if (v != 0) return false;
    return true;
  });
}

std::string P(const std::string& prefix, const std::string& key) { return prefix.empty() ? key : prefix + "." + key; }

// The step-time terms stacked: where the step of the layout goes.
std::string EstimateTimeChart(const JsonFields& f, const std::string& prefix, const std::string& id,
                              const std::string& label, double step) {
  BarChartData time;
  time.spec = {id + "-time",
               "Step time breakdown",
               fmt::format("Where the {} step of {} goes, term by term, stacked.", FormatValue(step, "s"), label),
               "",
               "time per step",
               "",
               "s"};
  time.categories = {label};
  // The terms of schema/step_time.h; a whole is drawn without its parts, which stack apart.
  auto term_s = [&](const std::string& key) { return f.NumberOr(P(prefix, "time." + key), 0); };
  for (const StepTerm& t : kStepTerms) {
    double v = term_s(t.key);
    for (const StepTerm& part : kStepTerms)
      if (part.part_of && std::string(part.part_of) == t.key) v -= term_s(part.key);
    time.series.push_back({t.chart_label, {std::max(0.0, v)}});
  }
  DropEmptySeries(&time);
  return RenderStackedBarChart(time);
}

// The memory of each pipeline stage stacked by kind, against the HBM capacity.
std::string EstimateMemoryChart(const JsonFields& f, const std::string& prefix, const std::string& id) {
  const nlohmann::json& stages = f.Array(P(prefix, "stages"));
  BarChartData mem;
  const double capacity = f.NumberOr(P(prefix, "memory.capacity_bytes"), 0);
  mem.spec = {id + "-memory",
              "Memory per pipeline stage",
              fmt::format("Allocated memory of each of the {} pipeline stages by kind, against the {} of HBM.",
                          stages.size(), FormatValue(capacity, "B")),
              "pipeline stage",
              "memory",
              "",
              "B"};
  for (const MemoryTerm& k : kMemoryTerms) mem.series.push_back({k.chart_label, {}});
  for (size_t s = 0; s < stages.size(); ++s) {
    const JsonView st(f, stages[s], fmt::format("{}[{}]", P(prefix, "stages"), s));
    mem.categories.push_back(
        fmt::format("stage {}", static_cast<int64_t>(st.NumberOr("stage", static_cast<double>(s)))));
    const JsonView m = st.Child("memory");
    for (size_t k = 0; k < std::size(kMemoryTerms); ++k)
      mem.series[k].values.push_back(m.NumberOr(std::string(kMemoryTerms[k].key) + "_bytes", 0));
  }
  DropEmptySeries(&mem);
  if (capacity > 0) {
    mem.reference = capacity;
    mem.reference_label = "HBM capacity";
  }
  return RenderStackedBarChart(mem);
}

// The busy share of the step of each link class, when the estimate lists links; else "".
std::string EstimateLinksChart(const JsonFields& f, const std::string& prefix, const std::string& id) {
  const nlohmann::json* links = f.Find(P(prefix, "links"));
  if (!links || !links->is_array() || links->empty()) return "";
  BarChartData lk;
  lk.spec = {
      id + "-links",
      "Link utilisation",
      "The share of the step each link class is busy on the stage where it is busiest (1 = busy the whole step).",
      "link",
      "busy share of the step",
      "",
      "fraction"};
  lk.series.push_back({"utilisation", {}});
  for (size_t i = 0; i < links->size(); ++i) {
    const JsonView l(f, (*links)[i], fmt::format("{}[{}]", P(prefix, "links"), i));
    lk.categories.push_back(
        fmt::format("{} (stage {})", l.String("link"), static_cast<int64_t>(l.NumberOr("stage", 0))));
    lk.series[0].values.push_back(l.Number("utilisation"));
  }
  lk.reference = 1.0;
  lk.reference_label = "whole step";
  return RenderBarChart(lk);
}

// The collectives table, when the estimate lists communication; else "".
std::string EstimateCommTable(const JsonFields& f, const std::string& prefix) {
  const nlohmann::json* comm = f.Find(P(prefix, "communication"));
  if (!comm || !comm->is_array() || comm->empty()) return "";
  DataTable t;
  t.columns = {"kind", "op", "group", "bytes per call", "calls", "time per call", "total", "exposed"};
  t.numeric = {false, false, true, true, true, true, true, true};
  t.css_class = "communication";
  for (size_t i = 0; i < comm->size(); ++i) {
    const JsonView c(f, (*comm)[i], fmt::format("{}[{}]", P(prefix, "communication"), i));
    t.rows.push_back({c.StringOr("kind", ""), c.StringOr("op", ""), fmt::format("{}", c.NumberOr("group_size", 0)),
                      FormatValue(c.NumberOr("bytes_per_call", 0), "B"),
                      fmt::format("{}", c.NumberOr("calls_per_step", 0)),
                      FormatValue(c.NumberOr("time_per_call_s", 0), "s"), FormatValue(c.NumberOr("total_s", 0), "s"),
                      FormatValue(c.NumberOr("exposed_s", 0), "s")});
  }
  return "<h3>Collectives</h3>\n" + RenderTable(t);
}

}  // namespace

std::string EstimateCharts(const JsonFields& f, const std::string& prefix, const std::string& id) {
  std::string html;
  const JsonView layout(f, f.At(P(prefix, "layout")), P(prefix, "layout"));
  const std::string label = LayoutLabel(layout);
  const double step = f.Number(P(prefix, "throughput.step_time_s"));
  html += Paragraph(fmt::format(
      "{}: step {}, {} tokens/s per GPU, MFU {:.1f}%, exposed communication {:.1f}%, bubble {:.1f}%.", label,
      FormatValue(step, "s"), FormatValue(f.Number(P(prefix, "throughput.tokens_per_s_per_gpu")), ""),
      100 * f.Number(P(prefix, "throughput.mfu")), 100 * f.NumberOr(P(prefix, "throughput.comm_share"), 0),
      100 * f.NumberOr(P(prefix, "throughput.bubble_rate"), 0)));
  html += EstimateTimeChart(f, prefix, id, label, step);
  html += EstimateMemoryChart(f, prefix, id);
  html += EstimateLinksChart(f, prefix, id);
  html += EstimateCommTable(f, prefix);
  return html;
}

std::string RenderEstimateSection(const ReportInput& in) {
  const JsonFields f(in.doc, in.path);
  std::string html = Paragraph(fmt::format("{} on {} GPUs of {}.", f.StringOr("model.name", "model"),
                                           f.NumberOr("cluster.gpus", 0), f.StringOr("cluster.gpu", "?")));
  return html + EstimateCharts(f, "", ChartId(in.path, "estimate"));
}

}  // namespace paratune
