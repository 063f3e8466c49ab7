// The JSON form of framework settings, schema "paratune.emit/1" (docs/json.md): the framework,
// the settings' text as written to a file, and the notes on what the framework cannot express.
// The Python module's paratune.emit() returns it (no CLI command prints it yet).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "emit/emit.h"

namespace paratune {

inline constexpr const char* kEmitSchema = "paratune.emit/1";

nlohmann::json EmittedToJson(Framework f, const Emitted& e);

}  // namespace paratune
