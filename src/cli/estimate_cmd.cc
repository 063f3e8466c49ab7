// `paratune estimate`: the cost model's answer for one model, cluster and layout.
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/estimate_report.h"
#include "cli/scenario_flags.h"
#include "cost/estimate_json.h"

namespace paratune::cli {

Command AddEstimateCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("estimate", "estimate one training step for a given layout");
  auto f = std::make_shared<ScenarioFlags>();
  AddScenarioFlags(cmd, *f);
  return {cmd, [cmd, f] {
            const Scenario s = ResolveScenario(*f, *cmd);
            const Estimate e = EstimateStep(s.model, s.cluster, s.training, s.layout, s.options);
            if (f->json)
              fmt::print("{}\n", EstimateToJson(e).dump(2));
            else
              fmt::print("{}", FormatEstimate(e, s.cluster.gpu));
            return 0;
          }};
}

}  // namespace paratune::cli
