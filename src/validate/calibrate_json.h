// The JSON form of a calibration fit, schema "paratune.calibrate/1" (docs/json.md): per GPU
// generation the rows used, the mean absolute percentage error before and after (fractions) and
// the fitted fractions, plus the TOML text that `--out` writes.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "validate/calibrate.h"
#include "validate/calibrate_runs.h"
#include "validate/cross_validation.h"

namespace paratune {

inline constexpr const char* kCalibrateSchema = "paratune.calibrate/1";

nlohmann::json CalibrationFitJson(const CalibrationFit& fit, const std::string& toml);
// `calibrate --from-runs`: the same document plus `from_runs` (docs/json.md): the cluster, the
// rounds, the mean absolute percentage errors before, after and leave-one-out, and per run its
// measured and predicted tokens/s per GPU.
nlohmann::json RunsCalibrationJson(const RunsCalibration& rc, const std::string& cluster, const std::string& toml);

// `calibrate --cross-validate source --json`, schema "paratune.cross_validation/1": the files,
// the grouping, the in-sample and held-out error statistics ({n, mape, median, p90, max}) and per
// source the same with the GPU generations no other source covers.
nlohmann::json CrossValidationJson(const CrossValidation& cv, const std::string& files);

}  // namespace paratune
