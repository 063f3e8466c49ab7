#include "runs/registry_calibration.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "runs/registry.h"
#include "util/error.h"
#include "validate/calibrate_json.h"

namespace paratune {

std::string ClusterToFit(Database& db, const std::string& given) {
  const auto clusters = Clusters(db);
  std::string known;
  for (const auto& [c, n] : clusters) known += fmt::format("{}'{}' ({} runs)", known.empty() ? "" : ", ", c, n);
  if (known.empty()) known = "none";
  if (!given.empty()) {
    for (const auto& [c, n] : clusters)
      if (c == given) return c;
    throw InputError(fmt::format("calibrate --from-runs: no runs recorded for cluster '{}' in {}; clusters: {}", given,
                                 db.Where(), known));
  }
  if (clusters.size() != 1)
    throw InputError(fmt::format("calibrate --from-runs: {} holds {} clusters; name one with --cluster-name: {}",
                                 db.Where(), clusters.size(), known));
  return clusters[0].first;
}

nlohmann::json RegistryCalibrationJson(const RunsCalibration& rc, const std::string& cluster, const std::string& toml,
                                       const std::string& where, const Skipped& skipped) {
  nlohmann::json j = RunsCalibrationJson(rc, cluster, toml);
  j["from_runs"]["db"] = where;
  nlohmann::json left_out = nlohmann::json::array();
  for (const auto& [name, why] : skipped) left_out.push_back({{"name", name}, {"reason", why}});
  j["from_runs"]["skipped"] = std::move(left_out);
  return j;
}

}  // namespace paratune
