// The readable text of `paratune diagnose`: a table of the findings ranked by the throughput
// they cost, then each finding with its numbers, where it was seen and the change to make.
#pragma once

#include <string>

#include "diagnose/diagnose.h"

namespace paratune::cli {

std::string FormatDiagnosis(const Diagnosis& d);

}  // namespace paratune::cli
