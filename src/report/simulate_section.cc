// The paratune.simulate/1 section: the pipeline Gantt per stage (forward, backward, weight-grad,
// send/recv, data-parallel and optimizer, idle as the gaps) when the document has its timeline
// (`simulate --json --timeline`), and each stage's simulated breakdown stacked.
#include <fmt/format.h>

#include "report/gantt_chart.h"
#include "report/scale.h"
#include "report/sections.h"
#include "report/stacked_bar_chart.h"
#include "step/simulate_json.h"

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
GanttChartData TimelineGantt(const Timeline& t, const std::string& id) {
  GanttChartData g;
  g.spec = {id + "-gantt",
            "Pipeline schedule",
            fmt::format("Each of the {} pipeline stages over one step: forward, backward and weight-gradient passes, "
                        "transfers, data-parallel communication and the optimizer; gaps are idle.",
                        t.ranks),
            "time",
            "stage",
            "s",
            ""};
  for (int s = 0; s < t.ranks; ++s) g.rows.push_back(fmt::format("stage {}", s));
  g.categories.assign(std::begin(kCategories), std::end(kCategories));
  g.spans.reserve(t.events.size());
  for (const TimelineEvent& e : t.events) {
    const std::string phase = PhaseName(e.phase);
    std::string category = "other";
    for (const auto& pc : kPhaseCategories)
      if (phase == pc.phase) category = pc.category;
    const std::string label = e.micro_batch >= 0 ? fmt::format("{} mb {}", phase, e.micro_batch) : phase;
    g.spans.push_back({e.rank, e.start_s, e.end_s(), category, label});
  }
  return g;
}

}  // namespace

std::string RenderSimulateSection(const ReportInput& in) {
  const SimulateDocument d = SimulateFromJson(in.doc, in.path);
  const std::string id = ChartId(in.path, "simulate");
  std::string html = Paragraph(
      fmt::format("{} on {} GPUs of {}, {}, schedule {}, {} micro-batches: step {}, pipeline {}{}.", d.model, d.gpus,
                  d.gpu, LayoutLabel(d.layout, d.training), d.schedule, d.micro_batches,
                  FormatValue(d.step_time_s, "s"), FormatValue(d.pipeline_time_s, "s"),
                  d.extrapolated ? " (steady state extended; the Gantt shows the simulated micro-batches)" : ""));
  if (d.timeline) {
    html += RenderGanttChart(TimelineGantt(*d.timeline, id));
  } else {
    html += Paragraph(
        "No timeline in this document: `paratune simulate --json --timeline` adds it, and the Gantt chart here.");
  }
  BarChartData b;
  b.spec = {id + "-stages",
            "Simulated breakdown per stage",
            "Compute, exposed non-compute and idle time of each pipeline stage over the step.",
            "pipeline stage",
            "time",
            "",
            "s"};
  b.series = {{"compute", {}}, {"non-compute", {}}, {"idle", {}}};
  for (const SimulatedStage& st : d.stages) {
    b.categories.push_back(fmt::format("stage {}", st.passes.index));
    b.series[0].values.push_back(st.figures.time.compute_s);
    b.series[1].values.push_back(st.figures.time.non_compute_s);
    b.series[2].values.push_back(st.figures.time.idle_s);
  }
  html += RenderStackedBarChart(b);
  return html;
}

}  // namespace paratune
