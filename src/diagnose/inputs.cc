#include "diagnose/inputs.h"

#include <algorithm>
#include <filesystem>

#include "analysis/analysis_json.h"
#include "trace/trace_set.h"
#include "util/error.h"
#include "util/file.h"

namespace paratune {
namespace {

// Enough of a file to recognise it: every reader's Looks* function decides on its first lines.
constexpr size_t kHeadBytes = 64 * 1024;
// The largest analysis document read whole when its schema is not in the head (ReadAnalysisJson's bound).
constexpr size_t kMaxDocumentBytes = size_t{1} << 30;

bool StartsWithJsonObject(std::string_view head) {
  size_t i = 0;
  if (head.substr(0, 3) == "\xEF\xBB\xBF") i = 3;  // UTF-8 byte-order mark
  while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) ++i;
  return i < head.size() && head[i] == '{';
}

// The inputs, directories expanded to their regular files (sorted, hidden files skipped).
std::vector<std::string> Expand(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::string> files;
      for (const auto& e : std::filesystem::directory_iterator(p, ec)) {
        const std::string name = e.path().filename().string();
        if (!name.empty() && name[0] != '.' && e.is_regular_file(ec)) files.push_back(e.path().string());
      }
      if (ec) throw InputError(p + ": cannot list: " + ec.message());
      std::sort(files.begin(), files.end());
      if (files.empty()) throw InputError(p + ": empty directory: no files to diagnose");
      out.insert(out.end(), files.begin(), files.end());
    } else if (!std::filesystem::exists(std::filesystem::symlink_status(p, ec))) {
      throw InputError(p + ": no such file");
    } else {
      RequireRegularFile(p);  // a link loop, a dangling link, a FIFO or a device each say so
      out.push_back(p);
    }
  }
  return out;
}

}  // namespace

InputKind DetectInputKind(const std::string& path) {
  const std::string head = ReadFileHead(path, kHeadBytes);
  if (head.empty()) throw InputError(path + ": empty file");
  if (head.rfind("SQLite format 3", 0) == 0) return InputKind::kTrace;  // Nsight Systems export
  if (StartsWithJsonObject(head)) {
    if (head.find("\"paratune.analyze/") != std::string::npos) return InputKind::kAnalysisJson;
    if (head.find("\"traceEvents\"") != std::string::npos || head.find("\"schemaVersion\"") != std::string::npos ||
        head.find("\"deviceProperties\"") != std::string::npos)
      return InputKind::kTrace;
    // paratune's own documents by their schema wherever it is: one written before the schema
    // came first (util/json_document.h) has it after its tables.
    if (head.size() == kHeadBytes &&
        ReadMaybeGzipFile(path, kMaxDocumentBytes).find("\"paratune.analyze/") != std::string::npos)
      return InputKind::kAnalysisJson;
  }
  // The text formats, most specific first: a topology matrix and an nccl-tests table have fixed
  // headers; telemetry has its CSV or dcgmi header; token counts and logs last.
  if (LooksLikeTopologyMatrix(head)) return InputKind::kTopology;
  if (LooksLikeNcclTests(head)) return InputKind::kNcclTests;
  if (LooksLikeGpuTelemetry(head)) return InputKind::kGpuTelemetry;
  if (LooksLikeExpertTokens(head)) return InputKind::kExpertTokens;
  if (LooksLikeTrainingLog(head)) return InputKind::kTrainingLog;
  throw InputError(
      path +
      ": not a file diagnose reads (expected a Kineto or Nsight trace, `paratune analyze --json` output, a "
      "Megatron-LM or torchtitan log or tokens/s CSV, an nvidia-smi or dcgmi dmon capture, nccl-tests output, "
      "`nvidia-smi topo -m` output or an expert token CSV; docs/diagnose.md)");
}

DiagnoseInputs LoadDiagnoseInputs(const std::vector<std::string>& paths, const LoadOptions& options) {
  if (paths.empty()) throw InputError("diagnose: no input files");
  DiagnoseInputs in;
  std::vector<std::string> trace_paths;
  const std::vector<std::string> expanded = Expand(paths);
  for (size_t i = 0; i < expanded.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      std::error_code ec;
      if (std::filesystem::equivalent(expanded[i], expanded[j], ec))
        throw InputError(expanded[i] + ": given twice (also as " + expanded[j] + "); its findings would count twice");
    }
  for (const std::string& p : expanded) {
    const InputKind kind = DetectInputKind(p);
    in.files.push_back({p, kind});
    switch (kind) {
      case InputKind::kTrace:
        trace_paths.push_back(p);
        break;
      case InputKind::kAnalysisJson:
        if (in.analysis)
          throw InputError(p + ": a second analysis; pass one `paratune analyze --json` output or the traces");
        in.analysis = ReadAnalysisJson(p);
        break;
      case InputKind::kTrainingLog:
        in.logs.push_back(ReadTrainingLog(p, options.allow_partial));
        for (std::string& n : TrainingLogNotes(in.logs.back())) in.notes.push_back(std::move(n));
        break;
      case InputKind::kGpuTelemetry:
        in.telemetry.push_back(ReadGpuTelemetry(p));
        break;
      case InputKind::kNcclTests:
        in.nccl_tests.push_back(ReadNcclTests(p));
        break;
      case InputKind::kTopology:
        in.topologies.push_back(ReadTopologyMatrix(p));
        break;
      case InputKind::kExpertTokens:
        in.expert_tokens.push_back(ReadExpertTokens(p));
        break;
    }
  }
  if (!trace_paths.empty()) {
    if (in.analysis) throw InputError(trace_paths.front() + ": traces beside an analysis JSON; pass one or the other");
    TraceSetOptions so;
    so.threads = options.threads;
    so.progress = options.progress;
    so.allow_partial = options.allow_partial;
    in.traces = ReadTraceSet(trace_paths, so);
    AnalysisOptions ao;
    ao.threads = options.threads;
    ao.critical_path.emplace();  // HTA's critical path of the first ProfilerStep (rule critical_path)
    in.analysis = AnalyzeTraces(in.traces, ao);
  }
  return in;
}

}  // namespace paratune
