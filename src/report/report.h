// Report: the pages of `paratune report` and `paratune serve`, built from the --json documents
// of the other commands (their `schema` field says which): one section per document, drawn by
// the section of its schema (one file per schema: plan_section.cc, estimate_section.cc,
// simulate_section.cc, analyze_section.cc, diagnose_section.cc, cluster_section.cc; sections.cc
// is the list), or, with `compare`, two documents of one schema side by side with a table of
// their differences. docs/report.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace paratune {

struct ReportInput {
  std::string path;  // as given (shown in the page)
  nlohmann::json doc;
};

// Reads a JSON document written by a paratune command; throws InputError naming the file when
// it is not JSON, has no `schema`, or a schema no section draws. Files are bounded (64 MiB).
ReportInput ReadReportInput(const std::string& path);
// The same on bytes already read (`path` names them): what serve does for each page, and the
// fuzz target's way in. JSON nesting is bounded (util/json_parse.h).
ReportInput ParseReportInput(std::string_view text, const std::string& path);
// Every *.json file of a directory (sorted by name; not recursive), or the file itself.
std::vector<ReportInput> ReadReportInputs(const std::vector<std::string>& paths);

struct ReportOptions {
  std::string title = "paratune report";
  bool compare = false;  // exactly two inputs of one schema
};

// The whole page. Throws InputError for a document whose fields are not what its schema says
// (naming the file and the field), or a comparison of other than two documents of one schema.
std::string RenderReport(const std::vector<ReportInput>& inputs, const ReportOptions& options);

// A section renderer: the charts and tables of one document of its schema.
struct SectionKind {
  const char* schema;  // "paratune.plan/1"
  const char* title;   // "Plan"
  std::string (*render)(const ReportInput& in);
};
const std::vector<SectionKind>& SectionKinds();

// `report --json`, schema "paratune.report/1": the page written (`out`, its `bytes`), `compare`,
// and each input's `path` and `schema`.
nlohmann::json ReportWrittenJson(const std::string& out, size_t bytes, bool compare,
                                 const std::vector<ReportInput>& inputs);
const SectionKind* FindSectionKind(const std::string& schema);

}  // namespace paratune
