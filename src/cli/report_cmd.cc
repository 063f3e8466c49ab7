// `paratune report`: one self-contained HTML report (inline SVG charts, no script or font
// fetched) from the --json documents of plan, estimate, simulate, analyze, diagnose and cluster,
// or two of one schema side by side with --compare. docs/report.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "analysis/analysis_json.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "diagnose/diagnose.h"
#include "diagnose/diagnose_json.h"
#include "report/report.h"
#include "util/error.h"
#include "util/file.h"
#include "util/json_document.h"
#include "util/json_parse.h"

namespace paratune::cli {
namespace {

struct ReportFlags {
  std::vector<std::string> inputs;
  std::string out;
  std::string title = "paratune report";
  bool compare = false;
  bool json = false;
};

// Whether the file `path` is a --json document of a paratune command (a .json file whose top
// level has a "schema" string); everything else is a raw input (trace, log, telemetry, ...).
bool IsDocument(const std::string& path) {
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

// The inputs sorted into documents and raw inputs. A directory holding paratune documents gives
// those; its other files are skipped with a note (a README or a trace left beside them). A
// directory without documents is a raw input, diagnosed as `diagnose DIR` would.
void SortInputs(const std::vector<std::string>& inputs, std::vector<std::string>* documents,
                std::vector<std::string>* raw) {
  namespace fs = std::filesystem;
  for (const std::string& p : inputs) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      (IsDocument(p) ? documents : raw)->push_back(p);
      continue;
    }
    std::vector<std::string> docs, others;
    for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.empty() || name[0] == '.') continue;
      (IsDocument(it->path().string()) ? docs : others).push_back(it->path().string());
    }
    if (ec) throw InputError(p + ": cannot list: " + ec.message());
    if (docs.empty()) {
      raw->push_back(p);
      continue;
    }
    std::sort(docs.begin(), docs.end());
    std::sort(others.begin(), others.end());
    for (const std::string& o : others)
      std::fprintf(stderr, "paratune: note: %s: not the --json document of a paratune command; skipped\n", o.c_str());
    documents->insert(documents->end(), docs.begin(), docs.end());
  }
}

// Raw inputs are run as `diagnose` runs them (each recognised by its content); the report gets
// the diagnosis and, when there were traces, their analysis.
std::vector<ReportInput> RunRawInputs(const std::vector<std::string>& raw) {
  std::vector<ReportInput> out;
  if (raw.empty()) return out;
  const DiagnoseInputs in = LoadDiagnoseInputs(raw);
  if (in.analysis) out.push_back({"analysis of the traces given", AnalysisJson(*in.analysis)});
  out.push_back({"diagnosis of the inputs given", DiagnosisJson(Diagnose(in))});
  return out;
}

}  // namespace

Command AddReportCommand(CLI::App& root) {
  auto* cmd =
      root.add_subcommand("report", "write one self-contained HTML report from the --json output of other commands");
  auto f = std::make_shared<ReportFlags>();
  cmd->add_option("inputs", f->inputs,
                  "JSON files written by plan, estimate, simulate, analyze, diagnose or cluster --json, "
                  "or directories of them; other files (traces, training logs, telemetry, nccl-tests, "
                  "topology) are analysed and diagnosed as `diagnose` does")
      ->required();
  cmd->add_option("--out", f->out, "the HTML file to write")->required();
  cmd->add_option("--title", f->title, "the page title");
  cmd->add_flag("--compare", f->compare, "two documents of one schema side by side, with their differences");
  cmd->add_flag("--json", f->json, "print what was written as JSON (schema paratune.report/1)");
  cmd->footer("Exit status 0 when written, 2 on bad input (nothing is written then). docs/report.md");
  return {cmd, [cmd, f] {
            PrepareOutputs(*cmd, {{"--out", &f->out}}, f->inputs);
            std::vector<std::string> documents, raw;
            SortInputs(f->inputs, &documents, &raw);
            std::vector<ReportInput> inputs =
                documents.empty() ? std::vector<ReportInput>{} : ReadReportInputs(documents);
            for (auto& r : RunRawInputs(raw)) inputs.push_back(std::move(r));
            ReportOptions o;
            o.title = f->title;
            o.compare = f->compare;
            const std::string html = RenderReport(inputs, o);
            WriteOutput(f->out, html);
            if (f->json) {
              fmt::print("{}\n", DocumentText(ReportWrittenJson(f->out, html.size(), f->compare, inputs)));
            } else {
              fmt::print("wrote {} ({} bytes) from {} input{}\n", f->out, html.size(), inputs.size(),
                         inputs.size() == 1 ? "" : "s");
            }
            return 0;
          }};
}

}  // namespace paratune::cli
