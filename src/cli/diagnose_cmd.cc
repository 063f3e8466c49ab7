// `paratune diagnose`: reads any mix of a run's measurements (profiler traces or analyze JSON,
// training logs, GPU telemetry, nccl-tests output, topology matrices, expert token counts), each
// recognised by its content, runs the tuning checklist and troubleshooting playbook as rules over
// them (with the cost model's expectation when the run's model and layout are given), and prints
// the findings ranked by the throughput they cost, or JSON (schema paratune.diagnose/1).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/diagnose_text.h"
#include "cli/scenario_flags.h"
#include "cli/terminal_progress.h"
#include "diagnose/diagnose_request.h"
#include "diagnose/diagnose_json.h"
#include "diagnose/rule.h"
#include "util/json_document.h"

namespace paratune::cli {
namespace {

struct DiagnoseFlags {
  std::vector<std::string> inputs;
  bool list_rules = false;
  bool quiet = false;
  bool allow_partial = false;
  int threads = 0;
};

}  // namespace

Command AddDiagnoseCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand(
      "diagnose", "find why a run is slow: rules over its traces, logs, telemetry, nccl-tests and topology");
  auto f = std::make_shared<ScenarioFlags>();
  auto df = std::make_shared<DiagnoseFlags>();
  cmd->add_option(
      "inputs", df->inputs,
      "files or directories, any mix: Kineto/Nsight traces or analyze JSON, Megatron-LM/torchtitan logs or a "
      "tokens/s CSV, nvidia-smi/dcgmi captures, nccl-tests output, nvidia-smi topo -m, expert token CSV");
  cmd->add_flag("--list-rules", df->list_rules, "list the rules and exit");
  cmd->add_flag("--quiet", df->quiet, "no progress line on the terminal");
  cmd->add_flag("--allow-partial", df->allow_partial,
                "analyse what can be read of a truncated trace and skip malformed log lines (errors otherwise)");
  cmd->add_option("--threads", df->threads, "trace files read in parallel (default: one per core)")
      ->check(CLI::Range(0, 1024));
  AddScenarioFlags(cmd, *f, ScenarioUse::kPredictIfModel);
  cmd->footer(
      "Each file's kind is detected from its content. Passing the run's model and layout (--model, --gpu, --gpus, "
      "--tp, --pp, ... as for `estimate`) lets the rules compare with what the cost model expects and propose "
      "layouts. Exit status 0 when it ran (findings are not errors), 2 on bad input. docs/diagnose.md");
  return {cmd, [cmd, f, df] {
            if (df->list_rules) {
              for (const auto& r : AllRules()) fmt::print("{:<26} {}\n", r->Name(), r->Summary());
              return 0;
            }
            DiagnoseRequest r;
            r.inputs = df->inputs;
            r.allow_partial = df->allow_partial;
            r.threads = df->threads;
            r.scenario = GivenRequest(*f, *cmd);
            TerminalProgress progress(df->quiet);
            r.progress = progress.get();
            const DiagnoseOutcome out = RunDiagnose(r);
            progress.Done();
            for (const std::string& n : out.notes) std::fprintf(stderr, "paratune: note: %s\n", n.c_str());
            const Diagnosis& d = out.diagnosis;
            if (f->json) {
              fmt::print("{}\n", DocumentText(DiagnosisJson(d)));
              return 0;
            }
            fmt::print("{}", FormatDiagnosis(d));
            return 0;
          }};
}

}  // namespace paratune::cli
