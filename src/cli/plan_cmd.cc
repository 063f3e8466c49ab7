// `paratune plan`: search every valid layout, rank them, explain the winner, and optionally
// write the winner's framework settings (--emit). docs/planner.md, docs/frameworks.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/plan_text.h"
#include "cli/terminal_progress.h"
#include "cli/scenario_flags.h"
#include "cli/time_to_train_cli.h"
#include "cli/output_file.h"
#include "emit/emit.h"
#include "emit/emit_winner.h"
#include "plan/plan_json.h"
#include "plan/plan_search.h"
#include "plan/planner.h"
#include "util/error.h"
#include "util/file.h"
#include "util/json_document.h"

namespace paratune::cli {
namespace {

struct PlanFlags {
  PlanSearch search;  // the library's defaults (plan/plan_search.h)
  std::string emit;
  std::string emit_out;
  bool quiet = false;
};

// The search's own flags: bounds, top, objective, headroom, emit, quiet, sweep.
void AddPlanFlags(CLI::App* cmd, PlanFlags& pf) {
  PlanFlags* p = &pf;
  PlanSearch& ps = p->search;
  for (auto [flag, v] : {std::pair{"--max-tp", &ps.max_tp},
                         {"--max-pp", &ps.max_pp},
                         {"--max-vp", &ps.max_vp},
                         {"--max-cp", &ps.max_cp},
                         {"--max-ep", &ps.max_ep},
                         {"--max-mbs", &ps.max_mbs}})
    cmd->add_option(flag, *v, "upper bound of the searched values (0 = none)");
  cmd->add_option("--top", ps.top, "layouts to list")->capture_default_str();
  cmd->add_option("--objective", ps.objective, "throughput (tokens/s per GPU) or memory (lowest peak first)")
      ->capture_default_str();
  cmd->add_option("--headroom", ps.headroom, "fraction of HBM kept free")->capture_default_str();
  cmd->add_option("--emit", p->emit, "write the winner's settings: megatron, torchtitan or deepspeed");
  cmd->add_option("--emit-out", p->emit_out, "file for --emit (written atomically; default standard output)");
  cmd->add_flag("--quiet", p->quiet, "no progress line on the terminal");
  cmd->add_option("--sweep", ps.sweep,
                  "also the best layout for each value of one knob: " + kSweepKnobNames.List(", "));
}

// Writes the winner's framework settings (--emit), to standard output or --emit-out; true when
// they went to standard output (nothing else is printed then).
bool EmitPlanWinner(Framework fw, const PlanResult& res, const PlanRequest& r, const PlanFlags& p) {
  const EmittedWinner won = EmitWinner(fw, res, r);
  if (won.rank > 0)
    std::fprintf(stderr, "paratune: note: layout #1 cannot be emitted for %s (%s); emitted #%zu, the fastest it runs\n",
                 FrameworkName(fw), won.refused.c_str(), won.rank + 1);
  const Emitted& em = won.emitted;
  for (const std::string& n : em.notes) std::fprintf(stderr, "paratune: note: %s\n", n.c_str());
  if (p.emit_out.empty() || p.emit_out == "-") {
    WriteOutput("-", em.text);
    return true;
  }
  WriteOutput(p.emit_out, em.text);
  std::fprintf(stderr, "paratune: wrote %s settings to %s\n", FrameworkName(fw), p.emit_out.c_str());
  return false;
}

// The sweep's table under the text report: the best layout for each value of the knob.
void PrintSweep(const SweepResult& sweep, const std::string& knob) {
  fmt::print("\nsweep of {}: the best layout for each value\n", knob);
  for (const SweepPoint& pt : sweep.points) {
    if (pt.fits)
      fmt::print("  {:>10}  {:>8.0f} tokens/s/GPU  MFU {:>5.1f}%  step {:.3f} s  (tp {} pp {} dp {} mbs {})\n",
                 pt.value, pt.best.tokens_per_s_per_gpu, 100 * pt.best.mfu, pt.best.step_time_s, pt.best.layout.tp,
                 pt.best.layout.pp, pt.best.layout.dp, pt.best.layout.mbs);
    else
      fmt::print("  {:>10}  does not fit: {}\n", pt.value, pt.reason);
  }
}

}  // namespace

Command AddPlanCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("plan", "search every valid layout and rank them by throughput or memory");
  auto f = std::make_shared<ScenarioFlags>();
  auto p = std::make_shared<PlanFlags>();
  auto ttt = std::make_shared<TimeToTrainFlags>();
  AddScenarioFlags(cmd, *f, ScenarioUse::kSearch);
  AddTimeToTrainFlags(cmd, *ttt);
  cmd->get_option("--precision")
      ->description(kPrecisionNames.List(", ") + ", or any (every precision the GPU supports)");
  AddPlanFlags(cmd, *p);
  return {cmd, [cmd, f, p, ttt] {
            PlanRequest r = ResolvePlanRequest(GivenRequest(*f, *cmd), p->search);
            const std::optional<TrainingBudget> budget = ResolveTrainingBudget(*ttt, *cmd);
            std::optional<Framework> fw;
            if (cmd->count("--emit")) fw = ParseFramework(p->emit, "--emit");
            if (cmd->count("--emit-out") && !fw) throw InputError("--emit-out needs --emit");
            PrepareOutputs(*cmd, {{"--emit-out", &p->emit_out}}, {f->model, f->hardware_file});
            const bool emit_to_stdout = fw && (p->emit_out.empty() || p->emit_out == "-");
            if (emit_to_stdout && f->json)
              throw InputError("--json and --emit without --emit-out would both write to standard output");
            TerminalProgress progress(p->quiet);
            r.progress = progress.get();
            const PlanResult res = Plan(r);
            const std::optional<SweepResult> sweep = SweepOf(r, p->search);
            progress.Done();
            if (fw && EmitPlanWinner(*fw, res, r, *p)) return 0;
            if (f->json) {
              fmt::print("{}\n", DocumentText(PlanToJson(res, r, budget, sweep)));
              return 0;
            }
            fmt::print("{}", FormatPlan(res, r, budget));
            if (sweep) PrintSweep(*sweep, p->search.sweep);
            return 0;
          }};
}

}  // namespace paratune::cli
