// `paratune analyze`: reads per-rank profiler traces (PyTorch/Kineto JSON, plain or .gz, or
// Nsight Systems SQLite exports), measures them with HTA's definitions and more
// (analysis/trace_analysis.h), optionally sets the cost model's prediction for a layout beside them,
// and prints a report, JSON (schema paratune.analyze/1, docs/json.md) or a reduced Chrome trace.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "cli/analyze_report.h"
#include "cli/commands.h"
#include "cli/terminal_progress.h"
#include "cli/scenario_flags.h"
#include "cli/output_file.h"
#include "step/compose.h"
#include "analysis/analysis_json.h"
#include "compare/prediction_json.h"
#include "diagnose/link_ceiling.h"
#include "analysis/reduced_trace.h"
#include "trace/trace_set.h"
#include "util/error.h"
#include "util/json_document.h"

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
  std::string trace_out;
};

}  // namespace

Command AddAnalyzeCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("analyze", "measure real profiler traces: GPU time breakdown, overlap, kernels, stragglers, MFU");
  auto f = std::make_shared<ScenarioFlags>();
  auto af = std::make_shared<AnalyzeFlags>();
  cmd->add_option("traces", af->inputs, "trace files or directories (Kineto .json/.json.gz one per rank, Nsight .sqlite)")
      ->required();
  cmd->add_option("--rank", af->rank, "rank shown in detail (default: the lowest)");
  cmd->add_flag("--exact-ns", af->exact_ns, "keep ns timestamps instead of rounding to whole µs as HTA does");
  cmd->add_flag("--include-last-step", af->include_last_step, "analyse the last ProfilerStep too (HTA drops it)");
  cmd->add_flag("--quiet", af->quiet, "no progress line on the terminal");
  cmd->add_flag("--allow-partial", af->allow_partial,
                "analyse what can be read of a truncated trace and skip events with unusable numbers (errors otherwise)");
  cmd->add_option("--top", af->top, "top kernels listed per kernel type")->capture_default_str()->check(CLI::Range(1, 1000));
  cmd->add_option("--threads", af->threads, "files read and ranks analysed in parallel (default: one per core)")->check(CLI::Range(0, 1024));
  cmd->add_option("--trace-out", af->trace_out, "write a reduced Chrome trace of the GPU timeline with the analysis as counters");
  AddScenarioFlags(cmd, *f, ScenarioUse::kPredictIfModel);
  cmd->footer("Passing --model (or an inline model, --hidden ...) sets the cost model's prediction for that model, "
              "cluster and layout beside the measurement: step time, MFU and GPU-time shares. Passing --gpu (with "
              "--fabric/--hardware) adds each collective's link ceiling to the JSON. docs/analysis.md");
  return {cmd, [cmd, f, af] {
            if (cmd->count("--rank") && af->rank < 0)
              throw InputError("--rank " + std::to_string(af->rank) + ": ranks are numbered from 0");
            std::vector<std::string> inputs = af->inputs;
            inputs.insert(inputs.end(), {f->model, f->hardware_file});
            PrepareOutputs(*cmd, {{"--trace-out", &af->trace_out}}, inputs);
            const auto t0 = std::chrono::steady_clock::now();
            TraceSetOptions so;
            so.threads = af->threads;
            so.allow_partial = af->allow_partial;
            TerminalProgress progress(af->quiet);
            so.progress = progress.get();
            const std::vector<RankTrace> ranks = ReadTraceSet(af->inputs, so);
            progress.Done();
            const double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            AnalysisOptions ao;
            ao.rounding = af->exact_ns ? TimeRounding::kExact : TimeRounding::kHta;
            ao.include_last_step = af->include_last_step;
            ao.top_kernels = af->top;
            ao.threads = af->threads;
            const TraceAnalysis a = AnalyzeTraces(ranks, ao);
            if (af->rank >= 0) {
              bool found = false;
              for (const auto& r : a.ranks) found = found || r.rank == af->rank;
              if (!found) throw InputError("--rank " + std::to_string(af->rank) + ": no such rank in the traces");
            }
            // A model (catalog id or inline dimensions) asks for the prediction beside the measurement.
            const bool predict = cmd->count("--model") > 0 || cmd->count("--hidden") > 0;
            std::optional<PredictionComparison> prediction;
            std::string label;
            if (predict) {
              const Scenario s = ResolveScenario(*f, *cmd);
              const StepResult step = ComposeStep(s.model, s.cluster, s.training, s.layout, EstimateOptions{s.rules, {}});
              const Estimate& e = step.estimate;
              prediction = ComparePrediction(a, e, step.simulation);
              const Layout& l = e.layout;
              label = fmt::format("{} on {} x {}, tp {} pp {} vp {} cp {} ep {} dp {}, mbs {}", e.model, e.gpus, e.gpu, l.tp, l.pp, l.vp,
                                  l.cp, l.ep, l.dp, l.mbs);
            }
            // A GPU asks for the link ceiling of each collective group (diagnose/link_ceiling.h).
            std::optional<ClusterSpec> ceiling_cluster;
            if (cmd->count("--gpu") > 0) ceiling_cluster = ResolveScenario(*f, *cmd).cluster;
            if (!af->trace_out.empty()) WriteOutput(af->trace_out, ReducedTraceJson(ranks, a));
            if (f->json) {
              nlohmann::json j = AnalysisJson(a);
              if (prediction) j["prediction"] = PredictionJson(*prediction);
              if (ceiling_cluster) AddCollectiveCeilings(a, *ceiling_cluster, j);
              fmt::print("{}\n", DocumentText(j));
              return 0;
            }
            AnalyzeReportOptions ro;
            ro.detail_rank = af->rank;
            ro.read_seconds = read_s;
            ro.prediction = prediction ? &*prediction : nullptr;
            ro.prediction_label = label;
            fmt::print("{}", FormatAnalysis(a, ro));
            if (!af->trace_out.empty()) fmt::print("\nreduced trace written to {} (open in ui.perfetto.dev)\n", af->trace_out);
            return 0;
          }};
}

}  // namespace paratune::cli
