#include "util/json_document.h"

#include <nlohmann/json.hpp>

namespace paratune {

std::string DocumentText(const nlohmann::json& doc, int indent) {
  using json = nlohmann::json;
  const auto dump = [&](const json& v) { return v.dump(indent, ' ', false, json::error_handler_t::replace); };
  if (!doc.is_object() || !doc.contains("schema") || doc.size() < 2) return dump(doc);
  const bool pretty = indent >= 0;
  const std::string pad = pretty ? std::string(static_cast<size_t>(indent), ' ') : "";
  std::string out = pretty ? "{\n" : "{";
  bool first = true;
  const auto member = [&](const std::string& key, const json& value) {
    if (!first) out += pretty ? ",\n" : ",";
    first = false;
    out += pad + json(key).dump() + (pretty ? ": " : ":");
    // A nested value's lines move right by one level (JSON strings hold no raw newline).
    const std::string text = dump(value);
    for (const char c : text) {
      out += c;
      if (c == '\n') out += pad;
    }
  };
  member("schema", doc["schema"]);
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (it.key() != "schema") member(it.key(), it.value());
  out += pretty ? "\n}" : "}";
  return out;
}

}  // namespace paratune
