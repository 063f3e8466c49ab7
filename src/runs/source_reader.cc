#include "runs/source_reader.h"

#include "runs/sha256.h"
#include "util/error.h"
#include "util/file.h"
#include "util/json_parse.h"

namespace paratune {

const std::vector<std::unique_ptr<SourceReader>>& SourceReaders() {
  static const std::vector<std::unique_ptr<SourceReader>> kReaders = [] {
    std::vector<std::unique_ptr<SourceReader>> r;
    r.push_back(MakeAnalyzeSourceReader());
    r.push_back(MakeDiagnoseSourceReader());
    r.push_back(MakeEstimateSourceReader());
    r.push_back(MakePlanSourceReader());
    r.push_back(MakeClusterSourceReader());
    r.push_back(MakeTrainingLogSourceReader());
    return r;
  }();
  return kReaders;
}

static std::string KnownKinds() {
  std::string s;
  for (const auto& r : SourceReaders()) s += (s.empty() ? "" : ", ") + std::string(r->Kind());
  return s;
}

ReadSource ReadRunSourceText(const std::string& path, const std::string& text) {
  nlohmann::json doc;
  SourceFile f{path, text, nullptr};
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    try {
      doc = ParseJson(text, path);
    } catch (const nlohmann::json::exception&) {
      throw InputError(path + ": not valid JSON");
    }
    f.json = &doc;
  }
  for (const auto& r : SourceReaders()) {
    if (!r->Accepts(f)) continue;
    ReadSource out;
    out.kind = std::string(r->Kind());
    out.sha256 = Sha256Hex(text);
    r->Read(f, out.part);
    out.part.sources.push_back({out.sha256, out.kind, path, ""});
    for (auto& s : out.part.series) s.source = out.sha256;
    return out;
  }
  if (f.json) {
    const auto it = doc.find("schema");
    const std::string what = it == doc.end() ? "a JSON file without a \"schema\" field"
                             : !it->is_string()
                                 ? "field 'schema' is not a string"
                                 : "JSON schema '" + it->get<std::string>() + "' is not one runs record reads";
    throw InputError(path + ": " + what + " (it reads " + KnownKinds() + ")");
  }
  throw InputError(path + ": not a file runs record reads (it reads " + KnownKinds() + ")");
}

ReadSource ReadRunSourceFile(const std::string& path) { return ReadRunSourceText(path, ReadMaybeGzipFile(path)); }

}  // namespace paratune
