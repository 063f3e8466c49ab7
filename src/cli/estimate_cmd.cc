// `paratune estimate`: the cost model's answer for one model, cluster and layout.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "plan/estimate_answer.h"
#include "cli/estimate_text.h"
#include "cli/scenario_flags.h"
#include "cli/time_to_train_cli.h"
#include "scenario/megatron_scenario.h"
#include "util/error.h"
#include "util/json_document.h"

namespace paratune::cli {
Command AddEstimateCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("estimate", "estimate one training step for a given layout");
  auto f = std::make_shared<ScenarioFlags>();
  auto megatron = std::make_shared<std::string>();
  auto ignore_unknown = std::make_shared<bool>(false);
  auto ttt = std::make_shared<TimeToTrainFlags>();
  AddScenarioFlags(cmd, *f);
  AddTimeToTrainFlags(cmd, *ttt);
  cmd->add_option("--from-megatron", *megatron,
                  "a Megatron-LM argument list (one quoted string) giving the model, batch and layout");
  cmd->add_flag(
      "--ignore-unknown", *ignore_unknown,
      "with --from-megatron: skip options Megatron-LM does not have (an error otherwise, as its parser says)");
  return {
      cmd, [cmd, f, megatron, ignore_unknown, ttt] {
        Scenario s = ResolveScenario(*f, *cmd);
        const std::optional<TrainingBudget> budget = ResolveTrainingBudget(*ttt, *cmd);
        const std::optional<MegatronArgs> from =
            ApplyMegatronArgs(cmd->count("--from-megatron") ? std::optional(*megatron) : std::nullopt, *ignore_unknown,
                              GivenRequest(*f, *cmd), s);
        const EstimateAnswer answer = AnswerEstimate(s);
        const Estimate& e = answer.estimate;
        if (f->json) {
          fmt::print("{}\n", DocumentText(EstimateAnswerJson(answer, budget, from)));
        } else {
          if (!e.fits) {
            // Lead with it: the throughput below is of a layout that cannot run.
            fmt::print("DOES NOT FIT: pipeline stage {} needs {:.1f} GB per GPU, the {} has {:.1f} GB.\n", e.peak_stage,
                       e.peak_memory_bytes / 1e9, e.gpu, e.capacity_bytes / 1e9);
            if (const std::optional<FittingChange>& fix = answer.fitting_change)
              fmt::print(
                  "  fits with {}: {:.1f} GB, {:.0f} tokens/s per GPU (the fastest one-knob change; `paratune plan` "
                  "searches all of them)\n\n",
                  fix->change, fix->estimate.peak_memory_bytes / 1e9, fix->estimate.tokens_per_s_per_gpu);
            else
              fmt::print(
                  "  no one-knob change (recompute, ZeRO, micro-batch, 2x tp, 2x pp) fits; `paratune plan` "
                  "searches them together\n\n");
          }
          fmt::print("{}", FormatEstimate(e, s.cluster, budget));
          if (from) {
            std::string ignored;
            for (const std::string& w : from->ignored) ignored += (ignored.empty() ? "" : " ") + w;
            if (!ignored.empty()) fmt::print("\nfrom Megatron arguments, ignored: {}\n", ignored);
            for (const std::string& n : from->notes) fmt::print("from Megatron arguments: {}\n", n);
          }
        }
        return 0;
      }};
}

}  // namespace paratune::cli
