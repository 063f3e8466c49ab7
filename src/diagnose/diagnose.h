// Diagnose: runs every rule (diagnose/rules.cc) over a run's inputs and ranks the findings by
// the throughput they cost. When no rule warns, one `info` finding says so ("all clear") and
// names what was looked at.
#pragma once

#include <vector>

#include "diagnose/finding.h"
#include "diagnose/diagnosis_series.h"
#include "diagnose/inputs.h"

namespace paratune {

struct Diagnosis {
  std::vector<InputFile> inputs;
  std::vector<Finding> findings;  // ranked (RankFindings)
  std::vector<std::string> rules_run;
  DiagnosisSeries series;  // what the report draws beside the findings
};

Diagnosis Diagnose(const DiagnoseInputs& inputs);

}  // namespace paratune
