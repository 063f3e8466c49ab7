#include "diagnose/diagnose_request.h"

#include "diagnose/inputs.h"
#include "scenario/resolve_scenario.h"
#include "step/estimate.h"
#include "util/error.h"

namespace paratune {

DiagnoseOutcome RunDiagnose(const DiagnoseRequest& r) {
  const ScenarioRequest& f = r.scenario;
  const bool model = f.Given("--model") || f.Given("--hidden");
  if (r.inputs.empty() && !model)
    throw InputError("diagnose: no inputs (pass files, directories or the run's --model and layout)");
  if (r.threads < 0 || r.threads > 1024)
    throw InputError("--threads " + std::to_string(r.threads) + ": must be 0 (one per core) to 1024");
  LoadOptions lo;
  lo.threads = r.threads;
  lo.progress = r.progress;
  lo.allow_partial = r.allow_partial;
  DiagnoseInputs in = r.inputs.empty() ? DiagnoseInputs{} : LoadDiagnoseInputs(r.inputs, lo);
  if (!model && (f.Given("--gpu") || f.Given("--hardware") || f.Given("--nodes") || f.Given("--gpus")))
    in.cluster = ResolveScenario(f).cluster;
  if (model) {
    const Scenario s = ResolveScenario(f);
    in.cluster = s.cluster;
    PlannedRun p{s.model, s.cluster, s.training, s.layout, EstimateOptions{s.rules, {}}, {}};
    p.estimate = EstimateStep(s.model, s.cluster, s.training, s.layout, EstimateOptions{s.rules, {}});
    in.plan = std::move(p);
  }
  return {Diagnose(in), std::move(in.notes)};
}

}  // namespace paratune
