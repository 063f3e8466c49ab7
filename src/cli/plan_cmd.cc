// `paratune plan`: search every valid layout, rank them, explain the winner, and optionally
// write the winner's framework settings (--emit). docs/planner.md, docs/frameworks.md.
#include <CLI/CLI.hpp>
#include <tuple>
#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/plan_report.h"
#include "cli/terminal_progress.h"
#include "cli/scenario_flags.h"
#include "cli/time_to_train_cli.h"
#include "cli/output_file.h"
#include "emit/emit.h"
#include "plan/plan_json.h"
#include "plan/planner.h"
#include "util/error.h"
#include "util/file.h"
#include "util/json_document.h"

namespace paratune::cli {
namespace {

struct PlanFlags {
  int max_tp = 0, max_pp = 0, max_vp = 0, max_cp = 0, max_ep = 0, max_mbs = 0;
  int top = 10;
  std::string objective = "throughput";
  double headroom = 0.05;
  std::string emit;
  std::string emit_out;
  bool quiet = false;
  std::string sweep;
};

}  // namespace

Command AddPlanCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("plan", "search every valid layout and rank them by throughput or memory");
  auto f = std::make_shared<ScenarioFlags>();
  auto p = std::make_shared<PlanFlags>();
  auto ttt = std::make_shared<TimeToTrainFlags>();
  AddScenarioFlags(cmd, *f, ScenarioUse::kSearch);
  AddTimeToTrainFlags(cmd, *ttt);
  cmd->get_option("--precision")->description(kPrecisionNames.List(", ") + ", or any (every precision the GPU supports)");
  for (auto [flag, v] : {std::pair{"--max-tp", &p->max_tp}, {"--max-pp", &p->max_pp}, {"--max-vp", &p->max_vp},
                         {"--max-cp", &p->max_cp}, {"--max-ep", &p->max_ep}, {"--max-mbs", &p->max_mbs}})
    cmd->add_option(flag, *v, "upper bound of the searched values (0 = none)");
  cmd->add_option("--top", p->top, "layouts to list")->capture_default_str();
  cmd->add_option("--objective", p->objective, "throughput (tokens/s per GPU) or memory (lowest peak first)")
      ->capture_default_str();
  cmd->add_option("--headroom", p->headroom, "fraction of HBM kept free")->capture_default_str();
  cmd->add_option("--emit", p->emit, "write the winner's settings: megatron, torchtitan or deepspeed");
  cmd->add_option("--emit-out", p->emit_out, "file for --emit (written atomically; default standard output)");
  cmd->add_flag("--quiet", p->quiet, "no progress line on the terminal");
  cmd->add_option("--sweep", p->sweep, "also the best layout for each value of one knob: " + kSweepKnobNames.List(", "));
  return {cmd, [cmd, f, p, ttt] {
            ScenarioFlags flags = *f;
            const bool any = flags.precision == "any";
            if (any) flags.precision.clear();
            const Scenario s = ResolveScenario(flags, *cmd);
            PlanRequest r;
            r.model = s.model;
            r.cluster = s.cluster;
            r.training = s.training;
            r.any_precision = any;
            r.switches = s.layout;
            r.options = s.options;
            auto pin = [&](const char* flag, int v, std::optional<int>& dst) {
              if (cmd->count(flag)) dst = v;
            };
            pin("--tp", s.layout.tp, r.tp);
            pin("--pp", s.layout.pp, r.pp);
            pin("--vp", s.layout.vp, r.vp);
            pin("--cp", s.layout.cp, r.cp);
            pin("--ep", s.layout.ep, r.ep);
            pin("--etp", s.layout.etp, r.etp);
            pin("--zero", s.layout.zero, r.zero);
            pin("--mbs", s.layout.mbs, r.mbs);
            if (cmd->count("--recompute")) r.recompute = s.layout.recompute;
            r.max_tp = p->max_tp;
            r.max_pp = p->max_pp;
            r.max_vp = p->max_vp;
            r.max_cp = p->max_cp;
            r.max_ep = p->max_ep;
            r.max_mbs = p->max_mbs;
            // A pinned value above its own bound leaves nothing to search: say which two disagree.
            for (auto [flag, bound, pinned] : {std::tuple{"--tp", r.max_tp, r.tp}, {"--pp", r.max_pp, r.pp}, {"--vp", r.max_vp, r.vp},
                                               {"--cp", r.max_cp, r.cp}, {"--ep", r.max_ep, r.ep}, {"--mbs", r.max_mbs, r.mbs}})
              if (pinned && bound > 0 && *pinned > bound)
                throw InputError(fmt::format("{} {} is above --max-{} {}: the two exclude each other", flag, *pinned, flag + 2, bound));
            r.top = p->top;
            r.headroom = p->headroom;
            r.objective = ParseObjective(p->objective, "--objective");
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
            std::optional<SweepResult> sweep;
            if (!p->sweep.empty()) sweep = Sweep(r, kSweepKnobNames.Parse(p->sweep, "--sweep", "sweep knob"));
            progress.Done();
            if (fw) {
              // The fastest layout the framework runs; a faster one it refuses is named in a note.
              const Estimate* w = nullptr;
              std::string refused;
              for (const Estimate& e : res.ranked) {
                const std::string why = FrameworkRefuses(*fw, {r.model, r.cluster, e.training, e.layout});
                if (why.empty()) {
                  w = &e;
                  break;
                }
                if (refused.empty()) refused = why;
              }
              if (!w) throw InputError(fmt::format("--emit {}: none of the {} ranked layouts can be emitted: {}", FrameworkName(*fw), res.ranked.size(), refused));
              if (w != &res.ranked.front())
                std::fprintf(stderr, "paratune: note: layout #1 cannot be emitted for %s (%s); emitted #%zu, the fastest it runs\n",
                             FrameworkName(*fw), refused.c_str(), static_cast<size_t>(w - res.ranked.data()) + 1);
              const Emitted em = EmitSettings(*fw, {r.model, r.cluster, w->training, w->layout});
              for (const std::string& n : em.notes) std::fprintf(stderr, "paratune: note: %s\n", n.c_str());
              if (emit_to_stdout) {
                WriteOutput("-", em.text);
                return 0;
              }
              WriteOutput(p->emit_out, em.text);
              std::fprintf(stderr, "paratune: wrote %s settings to %s\n", FrameworkName(*fw), p->emit_out.c_str());
            }
            if (f->json) {
              nlohmann::json j = PlanToJson(res, r, budget);
              if (sweep) j["sweep"] = SweepToJson(*sweep);
              fmt::print("{}\n", DocumentText(j));
              return 0;
            }
            fmt::print("{}", FormatPlan(res, r, budget));
            if (sweep) {
              fmt::print("\nsweep of {}: the best layout for each value\n", p->sweep);
              for (const SweepPoint& pt : sweep->points) {
                if (pt.fits)
                  fmt::print("  {:>10}  {:>8.0f} tokens/s/GPU  MFU {:>5.1f}%  step {:.3f} s  (tp {} pp {} dp {} mbs {})\n",
                             pt.value, pt.best.tokens_per_s_per_gpu, 100 * pt.best.mfu, pt.best.step_time_s,
                             pt.best.layout.tp, pt.best.layout.pp, pt.best.layout.dp, pt.best.layout.mbs);
                else
                  fmt::print("  {:>10}  does not fit: {}\n", pt.value, pt.reason);
              }
            }
            return 0;
          }};
}

}  // namespace paratune::cli
