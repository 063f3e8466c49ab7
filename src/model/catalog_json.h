// The JSON form of the model catalog, schema "paratune.models/1" (docs/json.md): every built-in
// model with its shape and parameter counts.
#pragma once

#include <nlohmann/json_fwd.hpp>

namespace paratune {

inline constexpr const char* kModelsSchema = "paratune.models/1";

nlohmann::json CatalogJson();

}  // namespace paratune
