// The JSON form of a validation, schema "paratune.validate/1" (docs/json.md): every row's
// prediction or the reason there is none, the error statistics overall and by group (fractions,
// not percent), the Korthikanti step-time errors and the pairwise ranking agreement.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "validate/validation.h"

namespace paratune {

inline constexpr const char* kValidateSchema = "paratune.validate/1";

nlohmann::json ErrorStatsJson(const ErrorStats& s);
nlohmann::json ValidationJson(const ValidationReport& report, const std::string& file);

}  // namespace paratune
