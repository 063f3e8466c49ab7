// The JSON of a diagnosis, schema paratune.diagnose/1 (docs/json.md): inputs with their detected
// kind, the ranked findings with their evidence and location, and the series the report draws;
// written and read back from one field list per struct (util/json_two_way.h), so the report and
// the run registry read the typed Diagnosis.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "diagnose/diagnose.h"

namespace paratune {

inline constexpr const char* kDiagnoseSchema = "paratune.diagnose/1";

nlohmann::json DiagnosisJson(const Diagnosis& d);
// Throws InputError naming the file and the field of a missing or mistyped member.
Diagnosis DiagnosisFromJson(const nlohmann::json& doc, const std::string& where);

}  // namespace paratune
