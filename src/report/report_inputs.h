// The inputs of `paratune report` sorted by what they are: the --json documents of paratune
// commands (a .json file whose top level has a "schema" string starting "paratune."), drawn by
// their sections, and raw inputs (traces, training logs, telemetry, nccl-tests, topology),
// analysed and diagnosed as `paratune diagnose` does, whose documents the report then draws.
#pragma once

#include <string>
#include <vector>

#include "report/report.h"

namespace paratune {

// Whether the file `path` is a --json document of a paratune command.
bool IsParatuneDocument(const std::string& path);

struct SortedReportInputs {
  std::vector<std::string> documents;
  std::vector<std::string> raw;
  std::vector<std::string> skipped;  // files beside documents in a directory that are not documents
};

// A directory holding paratune documents gives those; its other files are skipped (a README or
// a trace left beside them). A directory without documents is a raw input, diagnosed as
// `diagnose DIR` would. Throws InputError for a directory that cannot be listed.
SortedReportInputs SortReportInputs(const std::vector<std::string>& inputs);

// Raw inputs run as `diagnose` runs them (each recognised by its content): the diagnosis and,
// when there were traces, their analysis, as report inputs. None for none.
std::vector<ReportInput> DiagnoseRawInputs(const std::vector<std::string>& raw);

}  // namespace paratune
