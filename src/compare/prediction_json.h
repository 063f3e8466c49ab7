// The "prediction" member of `paratune analyze --json` (schema paratune.analyze/1, docs/json.md):
// the measured and predicted step time, MFU and GPU-time shares side by side.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "compare/prediction.h"

namespace paratune {

nlohmann::json PredictionJson(const PredictionComparison& p);

}  // namespace paratune
