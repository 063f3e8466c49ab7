// The one reader of JSON fields: paratune's own --json documents read back (the report's
// sections, the run registry, diagnose from an analysis) look fields up by path, and an error
// names the file and the field ("plan.json: field 'ranked[2].mfu' is not a number"), so nothing
// is drawn or recorded from a document that is not what its schema says. Numbers must be finite,
// and a field whose name says duration or size ("_s", "_bytes") must not be negative.
// util/json_two_way.h reads whole typed documents with it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace paratune {

class JsonFields {
 public:
  JsonFields(const nlohmann::json& doc, std::string file) : doc_(doc), file_(std::move(file)) {}
  // `path`: dot-separated keys and [i] indexes, e.g. "winner.stages[0].memory.params_bytes".
  const nlohmann::json& At(std::string_view path) const;          // throws when absent
  const nlohmann::json* Find(std::string_view path) const;        // nullptr when absent
  double Number(std::string_view path) const;                     // finite number, or throws
  double NumberOr(std::string_view path, double fallback) const;  // absent or null: fallback
  std::string String(std::string_view path) const;
  std::string StringOr(std::string_view path, const std::string& fallback) const;
  const nlohmann::json& Array(std::string_view path) const;  // an array, or throws
  [[noreturn]] void Fail(std::string_view path, std::string_view what) const;
  const std::string& file() const { return file_; }

 private:
  const nlohmann::json& doc_;
  std::string file_;
};

// A JsonFields on a sub-document (e.g. one element of an array), keeping the file and the path
// prefix for messages.
class JsonView {
 public:
  JsonView(const JsonFields& root, const nlohmann::json& node, std::string prefix)
      : root_(root), node_(node), prefix_(std::move(prefix)) {}
  double Number(std::string_view key) const;
  double NumberOr(std::string_view key, double fallback) const;
  std::string String(std::string_view key) const;
  std::string StringOr(std::string_view key, const std::string& fallback) const;
  int64_t Integer(std::string_view key) const;  // an integer (a JSON number without fraction)
  bool Bool(std::string_view key) const;
  const nlohmann::json* Find(std::string_view key) const;
  JsonView Child(std::string_view key) const;
  JsonView Element(size_t i) const;  // of this array node, at prefix[i]
  const nlohmann::json& node() const { return node_; }
  const JsonFields& root() const { return root_; }
  const std::string& prefix() const { return prefix_; }
  // The path of a field of this node, for messages ("ranks[2].temporal.idle_s").
  std::string PathOf(std::string_view key) const;
  // "FILE: field 'PATH'" of a field of this node ("" for the node itself): the `where` of a
  // parser that names what it could not read (EnumNames::Parse and kin).
  std::string Where(std::string_view key = "") const;
  [[noreturn]] void Fail(std::string_view key, std::string_view what) const;

 private:
  const JsonFields& root_;
  const nlohmann::json& node_;
  std::string prefix_;
};

}  // namespace paratune
