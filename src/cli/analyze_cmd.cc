// `paratune analyze`: reads per-rank profiler traces (PyTorch/Kineto JSON, plain or .gz, or
// Nsight Systems SQLite exports), measures them with HTA's definitions and more
// (analysis/trace_analysis.h), optionally sets the cost model's prediction for a layout beside them,
// and prints a report, JSON (schema paratune.analyze/1, docs/json.md) or a reduced Chrome trace.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/analyze_text.h"
#include "cli/trace_diff_text.h"
#include "cli/commands.h"
#include "cli/terminal_progress.h"
#include "cli/scenario_flags.h"
#include "cli/output_file.h"
#include "analysis/reduced_trace.h"
#include "diagnose/analyze_request.h"
#include "util/error.h"
#include "util/json_document.h"
#include "util/process_group.h"

namespace paratune::cli {
namespace {

struct AnalyzeFlags {
  std::vector<std::string> inputs;
  int rank = -1;
  bool exact_ns = false;
  bool include_last_step = false;
  bool allow_partial = false;
  bool quiet = false;
  int top = 10;
  int threads = 0;
  std::string kernel_sequences;
  int min_sequence_length = 3;
  std::string critical_path, critical_path_instances = "0";
  std::vector<std::string> data_load_events;
  std::string trace_out;
  std::vector<std::string> diff_against;
  std::string diff_steps, diff_ranks, diff_device = "all";
  bool diff_short_names = false;
};

void AddDiffFlags(CLI::App* cmd, AnalyzeFlags& af) {
  cmd->add_option("--diff-against", af.diff_against,
                  "a second run's traces (file or directory; repeat for several): the control of a trace diff, "
                  "the analysed traces being the test")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--diff-steps", af.diff_steps,
                  "ProfilerStep numbers compared, CONTROL:TEST (\"1009:1010\", \"3-5:8,9\"; default: the first "
                  "of each); without --diff-against, two step ranges of the analysed traces");
  cmd->add_option("--diff-ranks", af.diff_ranks, "ranks compared, CONTROL:TEST (default: the lowest of each)");
  cmd->add_option("--diff-device", af.diff_device, "events compared: " + kDiffDeviceNames.List())
      ->capture_default_str();
  cmd->add_flag("--diff-short-names", af.diff_short_names,
                "group by HTA's short names (template and argument lists dropped)");
}

void AddCriticalPathFlags(CLI::App* cmd, AnalyzeFlags& af) {
  cmd->add_option("--critical-path", af.critical_path,
                  "HTA's critical path of each rank in the window of the events whose name contains this "
                  "(\"ProfilerStep\"; \"\" for the whole trace): what the longest chain of dependent CPU, launch "
                  "and GPU work is bound by; with --trace-out, drawn over the trace as HTA's overlay draws it");
  cmd->add_option("--critical-path-instances", af.critical_path_instances,
                  "which instances of that annotation (from 0): N or A-B")
      ->capture_default_str();
  cmd->add_option("--data-load-events", af.data_load_events,
                  "names (or parts of names) of data-loading events, for the critical path")
      ->delimiter(',');
}

AnalyzeRequest RequestOf(const CLI::App& cmd, const AnalyzeFlags& af, const ScenarioFlags& f) {
  AnalyzeRequest r;
  r.inputs = af.inputs;
  if (cmd.count("--rank")) r.rank = af.rank;
  r.exact_ns = af.exact_ns;
  r.include_last_step = af.include_last_step;
  r.allow_partial = af.allow_partial;
  r.top = af.top;
  r.threads = af.threads;
  r.kernel_sequences = af.kernel_sequences;
  r.min_sequence_length = af.min_sequence_length;
  if (cmd.count("--critical-path")) r.critical_path = af.critical_path;
  r.critical_path_instances = af.critical_path_instances;
  r.data_load_events = af.data_load_events;
  r.keep_critical_path = !af.trace_out.empty();  // the reduced trace draws the path over its events
  r.scenario = GivenRequest(f, cmd);
  r.diff_against = af.diff_against;
  if (cmd.count("--diff-steps")) r.diff_steps = af.diff_steps;
  if (cmd.count("--diff-ranks")) r.diff_ranks = af.diff_ranks;
  r.diff_device = af.diff_device;
  r.diff_short_names = af.diff_short_names;
  return r;
}

int RunAnalyzeCommand(CLI::App& cmd, const ScenarioFlags& f, AnalyzeFlags& af, ProcessGroup* group, bool printer) {
  if (group != nullptr && !af.trace_out.empty())
    throw InputError(
        "--trace-out: the reduced trace is drawn from every rank's events, which stay with the "
        "process that read them; run it without mpirun or srun");
  std::vector<std::string> inputs = af.inputs;
  inputs.insert(inputs.end(), {f.model, f.hardware_file});
  inputs.insert(inputs.end(), af.diff_against.begin(), af.diff_against.end());
  PrepareOutputs(cmd, {{"--trace-out", &af.trace_out}}, inputs);
  AnalyzeRequest r = RequestOf(cmd, af, f);
  r.group = group;
  TerminalProgress progress(af.quiet || !printer);
  r.progress = progress.get();
  const AnalyzedTraces a = RunAnalyze(r);
  progress.Done();
  if (!printer) return 0;
  if (!af.trace_out.empty()) WriteOutput(af.trace_out, ReducedTraceJson(a.ranks, a.analysis));
  if (f.json) {
    fmt::print("{}\n", DocumentText(AnalyzedJson(a)));
    return 0;
  }
  AnalyzeReportOptions ro;
  ro.detail_rank = r.rank.value_or(-1);
  ro.read_seconds = a.read_s;
  ro.prediction = a.prediction ? &*a.prediction : nullptr;
  ro.prediction_label = a.prediction_label;
  fmt::print("{}", FormatAnalysis(a.analysis, ro));
  if (a.diff) fmt::print("{}", FormatTraceDiff(*a.diff, af.top));
  if (!af.trace_out.empty()) fmt::print("\nreduced trace written to {} (open in ui.perfetto.dev)\n", af.trace_out);
  return 0;
}

}  // namespace

Command AddAnalyzeCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand(
      "analyze", "measure real profiler traces: GPU time breakdown, overlap, kernels, stragglers, MFU");
  auto f = std::make_shared<ScenarioFlags>();
  auto af = std::make_shared<AnalyzeFlags>();
  cmd->add_option("traces", af->inputs,
                  "trace files or directories (Kineto .json/.json.gz one per rank, Nsight .sqlite)")
      ->required();
  cmd->add_option("--rank", af->rank, "rank shown in detail (default: the lowest)");
  cmd->add_flag("--exact-ns", af->exact_ns, "keep ns timestamps instead of rounding to whole µs as HTA does");
  cmd->add_flag("--include-last-step", af->include_last_step, "analyse the last ProfilerStep too (HTA drops it)");
  cmd->add_flag("--quiet", af->quiet, "no progress line on the terminal");
  cmd->add_flag(
      "--allow-partial", af->allow_partial,
      "analyse what can be read of a truncated trace and skip events with unusable numbers (errors otherwise)");
  cmd->add_option("--top", af->top, "top kernels listed per kernel type")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--threads", af->threads, "files read and ranks analysed in parallel (default: one per core)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--kernel-sequences", af->kernel_sequences,
                  "HTA's frequent kernel sequences: the GPU work launched by the outermost operators whose name "
                  "contains this (\"aten::linear\"), by pattern and count, per rank (--top patterns)");
  cmd->add_option("--min-sequence-length", af->min_sequence_length,
                  "GPU events a kernel sequence has at least (HTA's min_pattern_len)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  AddCriticalPathFlags(cmd, *af);
  cmd->add_option("--trace-out", af->trace_out,
                  "write a reduced Chrome trace of the GPU timeline with the analysis as counters");
  AddDiffFlags(cmd, *af);
  AddScenarioFlags(cmd, *f, ScenarioUse::kPredictIfModel);
  cmd->footer(
      "Passing --model (or an inline model, --hidden ...) sets the cost model's prediction for that model, "
      "cluster and layout beside the measurement: step time, MFU and GPU-time shares. Passing --gpu (with "
      "--fabric/--hardware) adds each collective's link ceiling to the JSON. --diff-against OTHER_RUN (or "
      "--diff-steps A:B on one run) adds HTA's trace diff: each operator and kernel added, deleted, run more or "
      "less often, and its time in both. docs/analysis.md");
  return {cmd, [cmd, f, af] {
            // Started by mpirun or srun among several processes: each reads and measures its
            // share, process 0 prints (and alone says what went wrong), every one exits alike.
            const std::unique_ptr<ProcessGroup> group = LaunchedProcessGroup();
            const bool printer = group == nullptr || group->Index() == 0;
            if (group == nullptr) return RunAnalyzeCommand(*cmd, *f, *af, nullptr, true);
            try {
              return RunAnalyzeCommand(*cmd, *f, *af, group.get(), printer);
            } catch (const InputError& e) {
              // Every process holds the same error. mpirun ends the job when the first process
              // exits with a failure, so process 0 prints before any process leaves the
              // exchange below (main prints it the same way for one process).
              if (printer) PrintInputError(e.what());
              group->AllGather("");
              return 2;
            }
          }};
}

}  // namespace paratune::cli
