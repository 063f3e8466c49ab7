// PrepareRunsCsv, CommitRunsCsv: `paratune runs record --csv FILE` (and paratune.runs Registry.record_csv): every
// usable row of a CSV in published_runs_dev.csv's schema recorded as a measured run of its own
// (runs/published_run_record.h), in one transaction, and its JSON, schema paratune.runs.import/1
// (docs/json.md). One definition for the CLI and the Python module.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <utility>
#include <vector>

#include "runs/database.h"
#include "runs/published_run_record.h"
#include "runs/registry.h"

namespace paratune {

struct CsvImportRequest {
  std::string csv_path;
  std::string hardware_file;                              // TOML merged into the built-in catalog; "" = none
  std::string cluster;                                    // the runs' cluster name; "" = each row's GPU name
  std::string software;                                   // overrides each row's, when given
  std::vector<std::pair<std::string, std::string>> tags;  // added to every run
};

struct CsvImport {
  std::string csv_path;
  std::string where;                  // the store, as messages name it
  CsvRecords in;                      // the runs recorded and the rows skipped, with why
  std::vector<RecordResult> results;  // one per record, in order
};

// Reads and checks the file, and applies the overrides; no store is touched (bad input writes
// nothing). Throws InputError when no row can be recorded (naming the first skipped row and why).
CsvImport PrepareRunsCsv(const CsvImportRequest& r);

// Records the prepared runs in one transaction; fills `results` and `where`.
void CommitRunsCsv(Database& db, CsvImport& c);

nlohmann::json CsvImportJson(const CsvImport& c);

}  // namespace paratune
