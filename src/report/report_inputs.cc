#include "report/report_inputs.h"

#include <algorithm>
#include <filesystem>

#include "analysis/analysis_json.h"
#include "diagnose/diagnose.h"
#include "diagnose/diagnose_json.h"
#include "util/error.h"
#include "util/file.h"
#include "util/json_parse.h"

namespace paratune {

bool IsParatuneDocument(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::path(path).extension() != ".json" || !std::filesystem::is_regular_file(path, ec)) return false;
  // A document is at most the size ReadReportInput accepts; a larger .json is a trace.
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size > (size_t{64} << 20)) return false;
  nlohmann::json j;
  try {
    j = ParseJson(ReadFile(path), path);  // too deep or a key twice: refused here
  } catch (const nlohmann::json::exception&) {
    return false;  // not JSON: a raw input
  }
  return j.is_object() && j.contains("schema") && j["schema"].is_string() &&
         j["schema"].get<std::string>().rfind("paratune.", 0) == 0;
}

SortedReportInputs SortReportInputs(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  SortedReportInputs out;
  for (const std::string& p : inputs) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      (IsParatuneDocument(p) ? out.documents : out.raw).push_back(p);
      continue;
    }
    std::vector<std::string> docs, others;
    for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.empty() || name[0] == '.') continue;
      (IsParatuneDocument(it->path().string()) ? docs : others).push_back(it->path().string());
    }
    if (ec) throw InputError(p + ": cannot list: " + ec.message());
    if (docs.empty()) {
      out.raw.push_back(p);
      continue;
    }
    std::sort(docs.begin(), docs.end());
    std::sort(others.begin(), others.end());
    out.skipped.insert(out.skipped.end(), others.begin(), others.end());
    out.documents.insert(out.documents.end(), docs.begin(), docs.end());
  }
  return out;
}

std::vector<ReportInput> DiagnoseRawInputs(const std::vector<std::string>& raw) {
  std::vector<ReportInput> out;
  if (raw.empty()) return out;
  const DiagnoseInputs in = LoadDiagnoseInputs(raw);
  if (in.analysis) out.push_back({"analysis of the traces given", AnalysisJson(*in.analysis)});
  out.push_back({"diagnosis of the inputs given", DiagnosisJson(Diagnose(in))});
  return out;
}

}  // namespace paratune
