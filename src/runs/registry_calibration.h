// Calibration from the run registry (`paratune calibrate --from-runs`): which cluster's runs a
// fit takes, and the fit's JSON with the store and the runs left out. The fit itself is
// validate/calibrate_runs.h; reading the runs back as rows, runs/published_run_record.h.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

#include "runs/database.h"
#include "runs/published_run_record.h"
#include "validate/calibrate_runs.h"

namespace paratune {

// The cluster named, when the store holds runs for it, else the store's only cluster. Throws
// InputError naming the store and listing its clusters (with their run counts) otherwise.
std::string ClusterToFit(Database& db, const std::string& given);

// paratune.calibrate/1 with `from_runs` (validate/calibrate_json.h RunsCalibrationJson), its
// `db` (the store, as messages name it) and `skipped` ([{name, reason}]).
nlohmann::json RegistryCalibrationJson(const RunsCalibration& rc, const std::string& cluster, const std::string& toml,
                                       const std::string& where, const Skipped& skipped);

}  // namespace paratune
