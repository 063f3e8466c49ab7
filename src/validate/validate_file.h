// ValidateFile: `paratune validate FILE.csv` and paratune.validate(): the published runs of a
// CSV read against the built-in hardware catalog (with a --hardware TOML merged), every row
// predicted (validate/validation.h). One definition for the CLI and the Python module.
#pragma once

#include <string>
#include <vector>

#include "validate/published_runs.h"
#include "validate/validation.h"

namespace paratune {

struct ValidatedFile {
  std::vector<PublishedRun> runs;  // the rows, which report.rows point into
  ValidationReport report;

  ValidatedFile() = default;
  ValidatedFile(const ValidatedFile&) = delete;  // report.rows point into runs
  ValidatedFile& operator=(const ValidatedFile&) = delete;
  ValidatedFile(ValidatedFile&&) = default;  // moving the vector keeps its elements in place
  ValidatedFile& operator=(ValidatedFile&&) = default;
};

// Throws InputError for an unreadable or malformed file, and when none of its rows could be
// modelled (tables of n 0 and "MAPE 0.0%" would read as a perfect score), naming the first
// row's reason. `hardware_file`: "" for none. `progress`: told the rows predicted (Validate).
ValidatedFile ValidateFile(const std::string& file, const std::string& hardware_file, Progress* progress = nullptr);

}  // namespace paratune
