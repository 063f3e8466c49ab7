// DocumentText: the text of a `--json` document with its "schema" member first. nlohmann::json
// keeps object members sorted by key, which put "schema" wherever the alphabet did (after a
// 64 KiB "ranks" table in analyze's output, beyond the window in which readers recognise a file
// by its first bytes). Every document a command prints or writes goes through here. docs/json.md.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace paratune {

// `doc` as nlohmann::json::dump(indent) would write it (invalid UTF-8 replaced), except that a
// top-level "schema" member comes first.
std::string DocumentText(const nlohmann::json& doc, int indent = 2);

}  // namespace paratune
