// The JSON of a diagnosis, schema paratune.diagnose/1 (docs/json.md): inputs with their detected
// kind, and the ranked findings with their evidence and location.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "diagnose/diagnose.h"

namespace paratune {

nlohmann::json DiagnosisJson(const Diagnosis& d);

}  // namespace paratune
