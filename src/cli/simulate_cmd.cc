// `paratune simulate`: the step composer's schedule simulation of one layout: a per-stage table,
// an optional text Gantt chart, a Chrome trace (file or standard output) and JSON (schema
// paratune.simulate/1, docs/json.md).
#include <CLI/CLI.hpp>
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/deprecated_flag.h"
#include "cli/scenario_flags.h"
#include "cli/output_file.h"
#include "step/compose.h"
#include "step/simulate_json.h"
#include "step/simulate_request.h"
#include "timeline/chrome_trace.h"
#include "util/error.h"
#include "util/file.h"
#include "util/json_document.h"

namespace paratune::cli {
namespace {

struct SimulateFlags {
  std::string trace;
  bool ascii = false;
  bool timeline = false;
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
          case Phase::kForward:
            ch = 'F';
            break;
          case Phase::kBackward:
            ch = 'B';
            break;
          case Phase::kWeightGrad:
            ch = 'W';
            break;
          case Phase::kOptimizer:
            ch = 'O';
            break;
          default:
            ch = '#';
            break;
        }
      }
      o += ch;
    }
    o += "|\n";
  }
  o += fmt::format(
      "  F forward, B backward (input gradient under zb-h1), W weight gradient, O optimizer, . idle; "
      "{} columns of {:.3f} ms\n",
      width, dt * 1e3);
  return o;
}

}  // namespace

namespace {

// The text report: the scenario, the step and pipeline time, the closed-form reference, and per
// stage its passes, its breakdown and its in-flight peaks.
void PrintSimulation(const StepResult& r, const Scenario& s) {
  const Estimate& e = r.estimate;
  const Layout& l = e.layout;
  fmt::print("{} on {} x {} ({}), tp {} pp {} vp {} dp {}, {} micro-batches, schedule {}\n", e.model, e.gpus, e.gpu,
             s.cluster.Describe(), l.tp, l.pp, l.vp, l.dp, e.micro_batches, e.schedule);
  fmt::print("step time {:.2f} ms (pipeline {:.2f} ms)\n", r.simulation.step_time_s * 1e3,
             r.simulation.pipeline_time_s * 1e3);
  if (l.pp > 1) {
    const ClosedFormReference cf = ClosedFormOf(e);
    fmt::print(
        "closed-form bubble, for reference (Narayanan et al. 2021 Sec. 2.2, no transfers or DP): "
        "{:.2f} ms beside {:.2f} ms of ideal pipeline time\n",
        cf.bubble_s * 1e3, cf.ideal_s * 1e3);
  }
  if (r.extrapolated)
    fmt::print(
        "the steady state of {} micro-batches is extended to all {} (periodic schedule; "
        "docs/cost-model.md, section 7)\n",
        r.simulated_micro_batches, e.micro_batches);
  fmt::print("  {:>5} {:>9} {:>9} {:>10} {:>10} {:>9} {:>7} {:>9} {:>8}\n", "stage", "F ms", "B ms", "compute ms",
             "exposed ms", "idle ms", "idle %", "inflight", "pend. W");
  for (size_t k = 0; k < r.simulation.stages.size(); ++k) {
    const StageFigures& g = r.simulation.stages[k];
    fmt::print("  {:>5} {:>9.3f} {:>9.3f} {:>10.2f} {:>10.2f} {:>9.2f} {:>7.1f} {:>9.2f} {:>8}\n", k,
               e.stages[k].forward_s * 1e3, e.stages[k].backward_s * 1e3, g.time.compute_s * 1e3,
               g.time.non_compute_s * 1e3, g.time.idle_s * 1e3, g.time.idle_pct(), g.peak_inflight_microbatches,
               g.peak_pending_weight_grads);
  }
}

}  // namespace

Command AddSimulateCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("simulate", "simulate the pipeline schedule of one training step");
  auto f = std::make_shared<ScenarioFlags>();
  auto sf = std::make_shared<SimulateFlags>();
  AddScenarioFlags(cmd, *f);
  auto* trace_out = cmd->add_option(
      "--trace-out", sf->trace,
      "write the simulated step as Chrome-trace JSON (chrome://tracing, Perfetto); - for standard output");
  AddDeprecatedOption(cmd, "--trace", trace_out);
  cmd->add_flag("--ascii", sf->ascii, "print a text Gantt chart, one row per stage");
  cmd->add_flag("--timeline", sf->timeline, "with --json: add every simulated event (the report's Gantt chart)");
  return {cmd, [cmd, f, sf] {
            if (f->json && sf->ascii)
              throw InputError("--json and --ascii exclude each other: JSON has no Gantt chart");
            const bool trace_stdout = sf->trace == "-";
            if (trace_stdout && (f->json || sf->ascii))
              throw InputError("--trace-out - writes the trace to standard output; it excludes --json and --ascii");
            PrepareOutputs(*cmd, {{"--trace-out", &sf->trace}}, {f->model, f->hardware_file});
            const Scenario s = ResolveScenario(*f, *cmd);
            if (sf->timeline && !f->json) throw InputError("--timeline adds the events to --json output; give --json");
            const SimulateRequest req{sf->ascii || !sf->trace.empty(), sf->timeline};
            const StepResult r = RunSimulate(s, req);
            if (!sf->trace.empty()) {
              const std::string json = ChromeTraceJson(r.simulation.timeline).dump() + "\n";
              WriteOutput(sf->trace, json);
              if (trace_stdout) return 0;
            }
            if (f->json) {
              // Compact with the timeline: the events are most of it.
              fmt::print("{}\n", DocumentText(SimulatedJson(r, req, sf->trace), sf->timeline ? -1 : 2));
              return 0;
            }
            PrintSimulation(r, s);
            if (sf->ascii) fmt::print("\n{}", AsciiGantt(r.simulation, 100));
            if (!sf->trace.empty()) fmt::print("trace written to {}\n", sf->trace);
            return 0;
          }};
}

}  // namespace paratune::cli
