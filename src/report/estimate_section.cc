// The paratune.estimate/1 section: the step-time terms stacked, memory per pipeline stage
// stacked by kind against the HBM capacity, the utilisation of each link class the step uses,
// and the collectives table (docs/json.md, docs/cost-model.md for the terms). The document is
// read back into the Estimate that wrote it (step/estimate_json.h).
#include <fmt/format.h>

#include "report/bar_chart.h"
#include "report/data_table.h"
#include "report/scale.h"
#include "report/sections.h"
#include "report/stacked_bar_chart.h"
#include "report/svg.h"
#include "step/estimate_json.h"

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

// The step-time terms stacked: where the step of the layout goes.
std::string EstimateTimeChart(const Estimate& e, const std::string& id, const std::string& label) {
  BarChartData time;
  time.spec = {
      id + "-time",
      "Step time breakdown",
      fmt::format("Where the {} step of {} goes, term by term, stacked.", FormatValue(e.step_time_s, "s"), label),
      "",
      "time per step",
      "",
      "s"};
  time.categories = {label};
  // The terms of schema/step_time.h; a whole is drawn without its parts, which stack apart.
  for (const StepTerm& t : kStepTerms) {
    double v = e.time.*t.value;
    for (const StepTerm& part : kStepTerms)
      if (part.part_of && std::string(part.part_of) == t.key) v -= e.time.*part.value;
    time.series.push_back({t.chart_label, {std::max(0.0, v)}});
  }
  DropEmptySeries(&time);
  return RenderStackedBarChart(time);
}

// The memory of each pipeline stage stacked by kind, against the HBM capacity.
std::string EstimateMemoryChart(const Estimate& e, const std::string& id) {
  BarChartData mem;
  mem.spec = {id + "-memory",
              "Memory per pipeline stage",
              fmt::format("Allocated memory of each of the {} pipeline stages by kind, against the {} of HBM.",
                          e.stages.size(), FormatValue(e.capacity_bytes, "B")),
              "pipeline stage",
              "memory",
              "",
              "B"};
  for (const MemoryTerm& k : kMemoryTerms) mem.series.push_back({k.chart_label, {}});
  for (const StageEstimate& st : e.stages) {
    mem.categories.push_back(fmt::format("stage {}", st.index));
    for (size_t k = 0; k < std::size(kMemoryTerms); ++k)
      mem.series[k].values.push_back(st.memory.*kMemoryTerms[k].value);
  }
  DropEmptySeries(&mem);
  if (e.capacity_bytes > 0) {
    mem.reference = e.capacity_bytes;
    mem.reference_label = "HBM capacity";
  }
  return RenderStackedBarChart(mem);
}

// The busy share of the step of each link class, when the estimate lists links; else "".
std::string EstimateLinksChart(const Estimate& e, const std::string& id) {
  if (e.links.empty()) return "";
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
  for (const LinkLoad& l : e.links) {
    lk.categories.push_back(fmt::format("{} (stage {})", l.link, l.stage));
    lk.series[0].values.push_back(l.utilisation);
  }
  lk.reference = 1.0;
  lk.reference_label = "whole step";
  return RenderBarChart(lk);
}

// The collectives table, when the estimate lists communication; else "".
std::string EstimateCommTable(const Estimate& e) {
  if (e.comms.empty()) return "";
  DataTable t;
  t.columns = {"kind", "op", "group", "bytes per call", "calls", "time per call", "total", "exposed"};
  t.numeric = {false, false, true, true, true, true, true, true};
  t.css_class = "communication";
  for (const CommItem& c : e.comms)
    t.rows.push_back({c.kind, c.op, fmt::format("{}", c.group_size), FormatValue(c.bytes_per_call, "B"),
                      fmt::format("{}", c.calls_per_step), FormatValue(c.time_per_call_s, "s"),
                      FormatValue(c.total_s, "s"), FormatValue(c.exposed_s, "s")});
  return "<h3>Collectives</h3>\n" + RenderTable(t);
}

}  // namespace

std::string EstimateCharts(const Estimate& e, const std::string& id) {
  std::string html;
  const std::string label = LayoutLabel(e.layout, e.training);
  html += Paragraph(
      fmt::format("{}: step {}, {} tokens/s per GPU, MFU {:.1f}%, exposed communication {:.1f}%, bubble {:.1f}%.",
                  label, FormatValue(e.step_time_s, "s"), FormatValue(e.tokens_per_s_per_gpu, ""), 100 * e.mfu,
                  100 * e.comm_share, 100 * e.bubble_rate));
  html += EstimateTimeChart(e, id, label);
  html += EstimateMemoryChart(e, id);
  html += EstimateLinksChart(e, id);
  html += EstimateCommTable(e);
  return html;
}

std::string RenderEstimateSection(const ReportInput& in) {
  const Estimate e = EstimateFromJson(in.doc, in.path);
  std::string html = Paragraph(fmt::format("{} on {} GPUs of {}.", e.model, e.gpus, e.gpu));
  return html + EstimateCharts(e, ChartId(in.path, "estimate"));
}

}  // namespace paratune
