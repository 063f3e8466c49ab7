// The JSON form of a calibration fit, schema "paratune.calibrate/1" (docs/json.md): per GPU
// generation the rows used, the mean absolute percentage error before and after (fractions) and
// the fitted fractions, plus the TOML text that `--out` writes.
#pragma once

#include <nlohmann/json.hpp>

#include "validate/calibrate.h"

namespace paratune {

inline constexpr const char* kCalibrateSchema = "paratune.calibrate/1";

nlohmann::json CalibrationFitJson(const CalibrationFit& fit, const std::string& toml);

}  // namespace paratune
