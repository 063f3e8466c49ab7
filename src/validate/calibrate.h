// Fits the per-generation calibration (data/calibration.toml: achievable fractions of GEMM,
// attention, HBM, NVLink and network peaks) to published runs by minimising the mean absolute
// percentage error of tokens/s per GPU, one GPU generation at a time. Coordinate descent over
// the seven physical fractions, each kept inside a plausible range; nothing per row or model.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hardware/gpu_spec.h"
#include "validate/published_runs.h"

namespace paratune {

struct CalibrationFit {
  std::map<std::string, Calibration> by_generation;
  std::map<std::string, int> rows;            // rows used per generation
  std::map<std::string, double> mape_before;  // with the starting calibration
  std::map<std::string, double> mape_after;
};

// Uses rows that are modelable and not of "low" confidence. `runs` are copied internally.
CalibrationFit FitCalibration(const std::vector<PublishedRun>& runs, int rounds = 6);

// The fit as the text of data/calibration.toml.
std::string CalibrationToml(const CalibrationFit& fit, const std::string& header_comment);

}  // namespace paratune
