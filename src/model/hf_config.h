// Reads a Hugging Face config.json into a ModelSpec. Supports the architectures listed by
// SupportedArchitectures(); anything else is an InputError that lists them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/model_spec.h"

namespace paratune {

const std::vector<std::string>& SupportedArchitectures();

// Parses `text` (the content of a config.json). `where` names the source in error messages.
// `name` becomes ModelSpec::name. Throws InputError on malformed JSON, an unsupported
// architecture, or a missing/invalid field.
ModelSpec ParseHfConfig(std::string_view text, const std::string& where, const std::string& name);

}  // namespace paratune
