// The files `paratune runs record` reads, one reader per kind, each in its own file
// (*_source.cc) behind this interface. A JSON file's kind is its `schema` field
// (paratune.analyze/1, paratune.diagnose/1, paratune.estimate/1, paratune.plan/1,
// paratune.cluster/1); a training log (Megatron-LM, NeMo, torchtitan, a tokens/s CSV) is
// recognised by its content (trace/training_log.h). What each reader takes: docs/runs.md "Sources".
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runs/run_record.h"
#include "step/estimate.h"

namespace paratune {

// One file as read: its bytes, its path for messages, and its JSON when it parsed as a JSON object.
struct SourceFile {
  std::string path;
  std::string text;
  const nlohmann::json* json = nullptr;  // null: not JSON
  // Whether it is a JSON object whose "schema" is the string `schema` (any other "schema", a
  // number or an object, is not: found by the run_source fuzz target).
  bool HasSchema(std::string_view schema) const {
    if (!json || !json->is_object()) return false;
    const auto it = json->find("schema");
    return it != json->end() && it->is_string() && it->get_ref<const std::string&>() == schema;
  }
};

class SourceReader {
 public:
  virtual ~SourceReader() = default;
  // The kind recorded in run_sources.file_schema: the JSON schema it reads, or "training_log".
  virtual std::string_view Kind() const = 0;
  virtual bool Accepts(const SourceFile& f) const = 0;
  // Fills `into` with what the file says (figures, model, cluster, layout, findings, series...).
  // Throws InputError naming the file and the JSON path (or line) of a missing or mistyped field.
  virtual void Read(const SourceFile& f, RunRecord& into) const = 0;
};

// Each reader's factory, defined in its own file.
std::unique_ptr<SourceReader> MakeAnalyzeSourceReader();
std::unique_ptr<SourceReader> MakeDiagnoseSourceReader();
std::unique_ptr<SourceReader> MakeEstimateSourceReader();  // paratune.estimate/1
std::unique_ptr<SourceReader> MakePlanSourceReader();      // paratune.plan/1: its winner
std::unique_ptr<SourceReader> MakeClusterSourceReader();
std::unique_ptr<SourceReader> MakeTrainingLogSourceReader();

// THE list of readers, in the order they are tried.
const std::vector<std::unique_ptr<SourceReader>>& SourceReaders();

// A recorded file: its kind, its hash, and what it says (sources[0] describes the file itself).
struct ReadSource {
  std::string kind;
  std::string sha256;
  RunRecord part;
};

// Reads `path` (plain or gzip), detects its kind and reads it. Throws InputError with one line
// naming the file: unreadable, a JSON schema no reader takes, or a file of no known kind.
ReadSource ReadRunSourceFile(const std::string& path);
// The same on bytes already read (tests, and the file's `path` only names it).
ReadSource ReadRunSourceText(const std::string& path, const std::string& text);

// Reads a paratune.estimate/1 document (at `json_path` in the file, "" for the root) as the
// prediction: model, cluster, layout and the predicted figures.
void ReadEstimateJson(const nlohmann::json& doc, const std::string& where, const std::string& json_path,
                      RunRecord& into);
// The same from the Estimate read back (step/estimate_json.h) and its document's `layout` object,
// kept as the document gives it.
void RecordEstimate(const Estimate& e, const nlohmann::json& layout, RunRecord& into);

}  // namespace paratune
