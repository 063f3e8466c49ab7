// ParseJson: the one way paratune parses a JSON document (nlohmann::json) it did not just write
// itself. It bounds the nesting (a document nested 100,000 deep would otherwise exhaust the
// stack of whatever walks it recursively: nlohmann::json's dump, the report's section walkers)
// and refuses an object that names one key twice (which value was meant is unknowable; RFC 8259
// section 4 leaves it to the reader). The trace reader's simdjson parser has the same bound.
// docs/files.md.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace paratune {

// Deeper than any document paratune reads or writes (its own nest 6 deep, Hugging Face configs
// 4, Kineto events 4) and shallow enough for any recursive walk.
inline constexpr size_t kMaxJsonDepth = 64;

// The document. Throws InputError("WHERE: JSON nested deeper than 64 levels") or
// InputError("WHERE: key "K" appears twice in one object"); a syntax error is left as
// nlohmann::json::parse_error (its byte offset) for the caller to word.
nlohmann::json ParseJson(std::string_view text, const std::string& where);

}  // namespace paratune
