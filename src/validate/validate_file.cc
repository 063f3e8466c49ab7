#include "validate/validate_file.h"

#include <fmt/format.h>

#include <algorithm>

#include "hardware/hardware_catalog.h"
#include "util/error.h"
#include "util/file.h"

namespace paratune {

ValidatedFile ValidateFile(const std::string& file, const std::string& hardware_file, Progress* progress) {
  HardwareCatalog hw = HardwareCatalog::BuiltIn();
  if (!hardware_file.empty()) hw.Merge(ReadFile(hardware_file), hardware_file);
  ValidatedFile out;
  out.runs = ReadPublishedRuns(ReadFile(file), file, hw);
  out.report = Validate(out.runs, kRankingThreshold, progress);
  const auto& rows = out.report.rows;
  if (!rows.empty() && std::none_of(rows.begin(), rows.end(), [](const RunPrediction& p) { return p.predicted; }))
    throw InputError(fmt::format("{}: none of its {} rows could be modelled; the first, {}: {}", file, rows.size(),
                                 rows.front().run->id, rows.front().reason));
  return out;
}

}  // namespace paratune
