// DiagnoseRequest: what `paratune diagnose` and paratune.diagnose() are asked (the run's files,
// how to read them, and the scenario flags given beside them), and RunDiagnose, which loads the
// inputs (diagnose/inputs.h), sets the cost model's expectation when the run's model is given and
// the cluster when only a GPU or a size is, and runs every rule (diagnose/diagnose.h). One
// definition for the CLI and the Python module.
#pragma once

#include <string>
#include <vector>

#include "diagnose/diagnose.h"
#include "scenario/scenario_request.h"
#include "util/progress.h"

namespace paratune {

struct DiagnoseRequest {
  std::vector<std::string> inputs;  // files or directories, any mix of kinds
  bool allow_partial = false;       // a truncated trace read as far as it goes, bad log lines skipped
  int threads = 0;                  // trace files read in parallel; 0: one per core
  ScenarioRequest scenario;         // --model/--hidden given: the plan; --gpu/--nodes/--gpus/--hardware: the cluster
  Progress* progress = nullptr;     // told the trace files read
};

struct DiagnoseOutcome {
  Diagnosis diagnosis;
  std::vector<std::string> notes;  // one line each about the inputs (the CLI prints them as notes)
};

// Throws InputError for bad input (no inputs and no model, a file no reader accepts, a bad flag).
DiagnoseOutcome RunDiagnose(const DiagnoseRequest& r);

}  // namespace paratune
