// `paratune simulate`: the cost model's per-stage pass times run through the event-driven
// pipeline simulator; a per-stage table, an optional text Gantt chart, Chrome trace and JSON
// (schema paratune.simulate/1, docs/simulator.md).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/scenario_flags.h"
#include "step/estimate_simulation.h"
#include "timeline/chrome_trace.h"

namespace paratune::cli {
namespace {

struct SimulateFlags {
  std::string schedule;
  std::string trace;
  bool ascii = false;
};

// One row per rank, ~`width` columns: the compute phase at each column's midpoint.
std::string AsciiGantt(const SimulationResult& r, int width) {
  std::vector<std::vector<const TimelineEvent*>> rows(static_cast<size_t>(r.timeline.ranks));
  for (const TimelineEvent& e : r.timeline.events)
    if (e.stream == Timeline::kComputeStream) rows[static_cast<size_t>(e.rank)].push_back(&e);
  std::string o;
  const double dt = r.step_time_s / width;
  for (size_t k = 0; k < rows.size(); ++k) {
    o += fmt::format("  {:>5} |", k);
    size_t i = 0;
    for (int c = 0; c < width; ++c) {
      const double t = (c + 0.5) * dt;
      while (i < rows[k].size() && rows[k][i]->end_s() <= t) ++i;
      char ch = '.';
      if (i < rows[k].size() && rows[k][i]->start_s <= t) {
        switch (rows[k][i]->phase) {
          case Phase::kForward: ch = 'F'; break;
          case Phase::kBackward: ch = 'B'; break;
          case Phase::kWeightGrad: ch = 'W'; break;
          case Phase::kOptimizer: ch = 'O'; break;
          default: ch = '#'; break;
        }
      }
      o += ch;
    }
    o += "|\n";
  }
  o += fmt::format("  F forward, B backward (input gradient under zb-h1), W weight gradient, O optimizer, . idle; "
                   "{} columns of {:.3f} ms\n", width, dt * 1e3);
  return o;
}

}  // namespace

Command AddSimulateCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("simulate", "simulate the pipeline schedule of one training step");
  auto f = std::make_shared<ScenarioFlags>();
  auto sf = std::make_shared<SimulateFlags>();
  AddScenarioFlags(cmd, *f);
  cmd->add_option("--schedule", sf->schedule, "gpipe, 1f1b, interleaved or zb-h1 (default: 1f1b, interleaved if vp > 1)");
  cmd->add_option("--trace", sf->trace, "write the simulated step as Chrome-trace JSON (chrome://tracing, Perfetto)");
  cmd->add_flag("--ascii", sf->ascii, "print a text Gantt chart, one row per stage");
  return {cmd, [cmd, f, sf] {
            const Scenario s = ResolveScenario(*f, *cmd);
            const Estimate e = EstimateStep(s.model, s.cluster, s.training, s.layout, s.options);
            const Layout& l = e.layout;
            const ScheduleKind kind = sf->schedule.empty() ? DefaultSchedule(l) : ParseSchedule(sf->schedule, "--schedule");
            const SimulationResult r = SimulateEstimate(e, kind, sf->ascii || !sf->trace.empty());
            if (!sf->trace.empty()) WriteChromeTrace(r.timeline, sf->trace);
            if (f->json) {
              nlohmann::json stages = nlohmann::json::array();
              for (size_t k = 0; k < r.stages.size(); ++k) {
                const StageFigures& g = r.stages[k];
                const StageEstimate& st = e.stages[k];
                stages.push_back({{"stage", k},
                                  {"forward_s", st.forward_s},
                                  {"backward_s", st.backward_s},
                                  {"weight_grad_s", st.weight_grad_s},
                                  {"grad_reduce_s", st.grad_reduce_s},
                                  {"optimizer_s", st.optimizer_s},
                                  {"compute_s", g.time.compute_s},
                                  {"comm_s", g.time.comm_s},
                                  {"non_compute_s", g.time.non_compute_s},
                                  {"idle_s", g.time.idle_s},
                                  {"idle_pct", g.time.idle_pct()},
                                  {"peak_inflight", g.peak_inflight},
                                  {"peak_inflight_microbatches", g.peak_inflight_microbatches},
                                  {"peak_pending_weight_grads", g.peak_pending_weight_grads}});
              }
              const nlohmann::json out = {
                  {"schema", "paratune.simulate/1"},
                  {"model", e.model},
                  {"gpu", e.gpu},
                  {"gpus", e.gpus},
                  {"layout", {{"tp", l.tp}, {"pp", l.pp}, {"vp", l.vp}, {"cp", l.cp}, {"ep", l.ep}, {"dp", l.dp}, {"mbs", l.mbs}}},
                  {"schedule", ScheduleName(kind)},
                  {"micro_batches", e.micro_batches},
                  {"p2p_time_s", e.p2p_time_s},
                  {"step_time_s", r.step_time_s},
                  {"pipeline_time_s", r.pipeline_time_s},
                  {"estimate_step_time_s", e.step_time_s},
                  {"trace", sf->trace.empty() ? nlohmann::json(nullptr) : nlohmann::json(sf->trace)},
                  {"stages", std::move(stages)}};
              fmt::print("{}\n", out.dump(2));
              return 0;
            }
            fmt::print("{} on {} x {}, tp {} pp {} vp {} dp {}, {} micro-batches, schedule {}\n", e.model, e.gpus, e.gpu,
                       l.tp, l.pp, l.vp, l.dp, e.micro_batches, ScheduleName(kind));
            fmt::print("step time {:.2f} ms (pipeline {:.2f} ms; the closed-form estimate says {:.2f} ms)\n",
                       r.step_time_s * 1e3, r.pipeline_time_s * 1e3, e.step_time_s * 1e3);
            fmt::print("  {:>5} {:>9} {:>9} {:>9} {:>9} {:>11} {:>9} {:>9} {:>8}\n", "stage", "F ms", "B ms", "compute ms",
                       "exposed ms", "idle ms", "idle %", "inflight", "pend. W");
            for (size_t k = 0; k < r.stages.size(); ++k) {
              const StageFigures& g = r.stages[k];
              fmt::print("  {:>5} {:>9.3f} {:>9.3f} {:>9.2f} {:>9.2f} {:>11.2f} {:>9.1f} {:>9.2f} {:>8}\n", k,
                         e.stages[k].forward_s * 1e3, e.stages[k].backward_s * 1e3, g.time.compute_s * 1e3,
                         g.time.non_compute_s * 1e3, g.time.idle_s * 1e3, g.time.idle_pct(),
                         g.peak_inflight_microbatches, g.peak_pending_weight_grads);
            }
            if (sf->ascii) fmt::print("\n{}", AsciiGantt(r, 100));
            if (!sf->trace.empty()) fmt::print("trace written to {}\n", sf->trace);
            return 0;
          }};
}

}  // namespace paratune::cli
