// The paratune.simulate/1 section: the pipeline Gantt per stage (forward, backward, weight-grad,
// send/recv, data-parallel and optimizer, idle as the gaps) when the document has its timeline
// (`simulate --json --timeline`), and each stage's simulated breakdown stacked.
#include <fmt/format.h>

#include "report/gantt_chart.h"
#include "report/scale.h"
#include "report/sections.h"
#include "report/stacked_bar_chart.h"

namespace paratune {

namespace {

// Phases by the names timeline/timeline.h prints, grouped into the Gantt's legend.
struct PhaseCategory {
  const char* phase;
  const char* category;
};
constexpr PhaseCategory kPhaseCategories[] = {{"F", "forward"},
                                              {"B", "backward"},
                                              {"W", "weight-grad"},
                                              {"send", "send/recv"},
                                              {"recv", "send/recv"},
                                              {"all-reduce", "data-parallel"},
                                              {"all-gather", "data-parallel"},
                                              {"optimizer", "optimizer"},
                                              {"other", "other"}};
constexpr const char* kCategories[] = {"forward",       "backward",  "weight-grad", "send/recv",
                                       "data-parallel", "optimizer", "other"};

// The pipeline Gantt per stage from the document's timeline (`simulate --json --timeline`).
GanttChartData TimelineGantt(const JsonFields& f, const std::string& id) {
  GanttChartData g;
  const int stages = static_cast<int>(f.Number("timeline.stages"));
  if (stages < 0 || stages > 100000) f.Fail("timeline.stages", "is out of range");
  g.spec = {id + "-gantt",
            "Pipeline schedule",
            fmt::format("Each of the {} pipeline stages over one step: forward, backward and weight-gradient passes, "
                        "transfers, data-parallel communication and the optimizer; gaps are idle.",
                        stages),
            "time",
            "stage",
            "s",
            ""};
  for (int s = 0; s < stages; ++s) g.rows.push_back(fmt::format("stage {}", s));
  g.categories.assign(std::begin(kCategories), std::end(kCategories));
  const nlohmann::json& events = f.Array("timeline.events");
  g.spans.reserve(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const nlohmann::json& e = events[i];
    const std::string where = fmt::format("timeline.events[{}]", i);
    if (!e.is_array() || e.size() != 6 || !e[0].is_number_integer() || !e[2].is_string() || !e[4].is_number() ||
        !e[5].is_number())
      f.Fail(where, "is not [stage, stream, phase, micro_batch, start_s, end_s]");
    const int stage = e[0].get<int>();
    if (stage < 0 || stage >= stages) f.Fail(where, "has a stage out of range");
    const std::string phase = e[2].get<std::string>();
    std::string category = "other";
    for (const auto& pc : kPhaseCategories)
      if (phase == pc.phase) category = pc.category;
    const std::string label =
        e[3].is_number_integer() && e[3].get<int>() >= 0 ? fmt::format("{} mb {}", phase, e[3].get<int>()) : phase;
    g.spans.push_back({stage, e[4].get<double>(), e[5].get<double>(), category, label});
  }
  return g;
}

}  // namespace

std::string RenderSimulateSection(const ReportInput& in) {
  const JsonFields f(in.doc, in.path);
  const std::string id = ChartId(in.path, "simulate");
  const JsonView layout(f, f.At("layout"), "layout");
  std::string html = Paragraph(
      fmt::format("{} on {} GPUs of {}, {}, schedule {}, {} micro-batches: step {}, pipeline {}{}.",
                  f.StringOr("model", "model"), f.NumberOr("gpus", 0), f.StringOr("gpu", "?"), LayoutLabel(layout),
                  f.StringOr("schedule", "?"), f.NumberOr("micro_batches", 0),
                  FormatValue(f.Number("step_time_s"), "s"), FormatValue(f.NumberOr("pipeline_time_s", 0), "s"),
                  f.At("extrapolated").is_boolean() && f.At("extrapolated").get<bool>()
                      ? " (steady state extended; the Gantt shows the simulated micro-batches)"
                      : ""));
  if (const nlohmann::json* tl = f.Find("timeline")) {
    const GanttChartData g = TimelineGantt(f, id);
    (void)tl;
    html += RenderGanttChart(g);
  } else {
    html += Paragraph(
        "No timeline in this document: `paratune simulate --json --timeline` adds it, and the Gantt chart here.");
  }
  const nlohmann::json& stages = f.Array("stages");
  BarChartData b;
  b.spec = {id + "-stages",
            "Simulated breakdown per stage",
            "Compute, exposed non-compute and idle time of each pipeline stage over the step.",
            "pipeline stage",
            "time",
            "",
            "s"};
  b.series = {{"compute", {}}, {"non-compute", {}}, {"idle", {}}};
  for (size_t s = 0; s < stages.size(); ++s) {
    const JsonView st(f, stages[s], fmt::format("stages[{}]", s));
    b.categories.push_back(fmt::format("stage {}", static_cast<int64_t>(st.NumberOr("stage", static_cast<double>(s)))));
    b.series[0].values.push_back(st.NumberOr("compute_s", 0));
    b.series[1].values.push_back(st.NumberOr("non_compute_s", 0));
    b.series[2].values.push_back(st.NumberOr("idle_s", 0));
  }
  html += RenderStackedBarChart(b);
  return html;
}

}  // namespace paratune
