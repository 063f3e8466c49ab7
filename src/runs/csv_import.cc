#include "runs/csv_import.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "hardware/hardware_catalog.h"
#include "util/error.h"
#include "util/file.h"
#include "validate/published_runs.h"

namespace paratune {

CsvImport PrepareRunsCsv(const CsvImportRequest& r) {
  HardwareCatalog hw = HardwareCatalog::BuiltIn();
  if (!r.hardware_file.empty()) hw.Merge(ReadFile(r.hardware_file), r.hardware_file);
  CsvImport out;
  out.csv_path = r.csv_path;
  out.in = RecordsOfPublishedRuns(ReadPublishedRuns(ReadFile(r.csv_path), r.csv_path, hw), r.cluster);
  const Skipped& skipped = out.in.skipped;
  if (out.in.records.empty())
    throw InputError(fmt::format(
        "runs record --csv: {}: no row can be recorded; row {}: {}{}", r.csv_path, skipped.front().first,
        skipped.front().second,
        skipped.size() > 1 ? fmt::format(" (and {} more rows skipped)", skipped.size() - 1) : std::string()));
  for (RunRecord& run : out.in.records) {
    if (!r.software.empty()) run.software = r.software;
    for (const auto& [k, v] : r.tags) SetTag(run, k, v);
  }
  return out;
}

void CommitRunsCsv(Database& db, CsvImport& c) {
  c.results = RecordRuns(db, c.in.records);
  c.where = db.Where();
}

nlohmann::json CsvImportJson(const CsvImport& c) {
  nlohmann::json j = {{"schema", "paratune.runs.import/1"},
                      {"db", c.where},
                      {"file", c.csv_path},
                      {"runs", nlohmann::json::array()},
                      {"skipped", nlohmann::json::array()}};
  for (size_t i = 0; i < c.results.size(); ++i)
    j["runs"].push_back(
        {{"name", c.results[i].name}, {"cluster", c.in.records[i].cluster}, {"created", c.results[i].created}});
  for (const auto& [id, why] : c.in.skipped) j["skipped"].push_back({{"id", id}, {"reason", why}});
  return j;
}

}  // namespace paratune
