#include "util/json_fields.h"

#include <cstdint>
#include <cmath>

#include <fmt/format.h>

#include "util/error.h"
#include "util/text.h"

namespace paratune {

namespace {

// Walks `path` from `node`; nullptr when a step is absent or of the wrong kind.
const nlohmann::json* Walk(const nlohmann::json& node, std::string_view path) {
  const nlohmann::json* cur = &node;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string_view::npos) return nullptr;
      int64_t index = 0;
      const NumberParse st = ParseInteger(path.substr(i + 1, close - i - 1), &index);
      if (st != NumberParse::kOk || index < 0 || !cur->is_array() || static_cast<size_t>(index) >= cur->size())
        return nullptr;
      cur = &(*cur)[static_cast<size_t>(index)];
      i = close + 1;
      continue;
    }
    size_t end = path.find_first_of(".[", i);
    if (end == std::string_view::npos) end = path.size();
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(std::string(path.substr(i, end - i)));
    if (it == cur->end()) return nullptr;
    cur = &*it;
    i = end;
  }
  return cur;
}

}  // namespace

void JsonFields::Fail(std::string_view path, std::string_view what) const {
  throw InputError(fmt::format("{}: field '{}' {}", file_, path, what));
}

const nlohmann::json* JsonFields::Find(std::string_view path) const { return Walk(doc_, path); }

const nlohmann::json& JsonFields::At(std::string_view path) const {
  const nlohmann::json* j = Find(path);
  if (!j) Fail(path, "is missing");
  return *j;
}

namespace {

// Whether the field named by the last key of `path` is a duration, size or rate (docs/json.md:
// the unit in the name, "_s", "_bytes", "_per_s"), which cannot be negative; a difference
// ("delta", "diff") can. Issue 32: "step_time_s": -1 was drawn as "step -1 s".
bool NonNegativeByName(std::string_view path) {
  const size_t dot = path.find_last_of('.');
  std::string_view key = dot == std::string_view::npos ? path : path.substr(dot + 1);
  if (const size_t bracket = key.find('['); bracket != std::string_view::npos) key = key.substr(0, bracket);
  if (key.find("delta") != std::string_view::npos || key.find("diff") != std::string_view::npos) return false;
  return key.ends_with("_s") || key.ends_with("_bytes");
}

}  // namespace

double JsonFields::Number(std::string_view path) const {
  const nlohmann::json& j = At(path);
  if (!j.is_number()) Fail(path, "is not a number");
  const double v = j.get<double>();
  if (!std::isfinite(v)) Fail(path, "is not finite");
  if (v < 0 && NonNegativeByName(path)) Fail(path, "is negative (a duration, size or rate)");
  return v;
}

double JsonFields::NumberOr(std::string_view path, double fallback) const {
  const nlohmann::json* j = Find(path);
  if (!j || j->is_null()) return fallback;
  return Number(path);
}

std::string JsonFields::String(std::string_view path) const {
  const nlohmann::json& j = At(path);
  if (!j.is_string()) Fail(path, "is not a string");
  return j.get<std::string>();
}

std::string JsonFields::StringOr(std::string_view path, const std::string& fallback) const {
  const nlohmann::json* j = Find(path);
  if (!j || j->is_null()) return fallback;
  return String(path);
}

const nlohmann::json& JsonFields::Array(std::string_view path) const {
  const nlohmann::json& j = At(path);
  if (!j.is_array()) Fail(path, "is not an array");
  return j;
}

namespace {
std::string Join(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}
}  // namespace

const nlohmann::json* JsonView::Find(std::string_view key) const { return Walk(node_, key); }

double JsonView::Number(std::string_view key) const {
  const nlohmann::json* j = Find(key);
  if (!j) root_.Fail(Join(prefix_, key), "is missing");
  if (!j->is_number()) root_.Fail(Join(prefix_, key), "is not a number");
  const double v = j->get<double>();
  if (!std::isfinite(v)) root_.Fail(Join(prefix_, key), "is not finite");
  if (v < 0 && NonNegativeByName(key)) root_.Fail(Join(prefix_, key), "is negative (a duration, size or rate)");
  return v;
}

double JsonView::NumberOr(std::string_view key, double fallback) const {
  const nlohmann::json* j = Find(key);
  if (!j || j->is_null()) return fallback;
  return Number(key);
}

std::string JsonView::String(std::string_view key) const {
  const nlohmann::json* j = Find(key);
  if (!j) root_.Fail(Join(prefix_, key), "is missing");
  if (!j->is_string()) root_.Fail(Join(prefix_, key), "is not a string");
  return j->get<std::string>();
}

std::string JsonView::StringOr(std::string_view key, const std::string& fallback) const {
  const nlohmann::json* j = Find(key);
  if (!j || j->is_null()) return fallback;
  return String(key);
}

int64_t JsonView::Integer(std::string_view key) const {
  const nlohmann::json* j = Find(key);
  if (!j) Fail(key, "is missing");
  if (!j->is_number_integer()) Fail(key, "is not an integer");
  if (j->is_number_unsigned() && j->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) Fail(key, "is too large");
  return j->get<int64_t>();
}

bool JsonView::Bool(std::string_view key) const {
  const nlohmann::json* j = Find(key);
  if (!j) Fail(key, "is missing");
  if (!j->is_boolean()) Fail(key, "is not true or false");
  return j->get<bool>();
}

std::string JsonView::PathOf(std::string_view key) const { return Join(prefix_, key); }

std::string JsonView::Where(std::string_view key) const {
  return root_.file() + ": field '" + (key.empty() ? prefix_ : PathOf(key)) + "'";
}

void JsonView::Fail(std::string_view key, std::string_view what) const { root_.Fail(PathOf(key), what); }

JsonView JsonView::Element(size_t i) const {
  if (!node_.is_array() || i >= node_.size()) root_.Fail(prefix_, "is not an array of that length");
  return JsonView(root_, node_[i], fmt::format("{}[{}]", prefix_, i));
}

JsonView JsonView::Child(std::string_view key) const {
  const nlohmann::json* j = Find(key);
  if (!j) root_.Fail(Join(prefix_, key), "is missing");
  return JsonView(root_, *j, Join(prefix_, key));
}

}  // namespace paratune
