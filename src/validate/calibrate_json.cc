#include "validate/calibrate_json.h"

namespace paratune {

nlohmann::json CalibrationFitJson(const CalibrationFit& fit, const std::string& toml) {
  nlohmann::json gens = nlohmann::json::array();
  for (const auto& [gen, c] : fit.by_generation) {
    nlohmann::json fractions = nlohmann::json::object();
    for (const CalibrationField& f : kCalibrationFields) fractions[f.key] = c.*f.value;
    gens.push_back({{"generation", gen},
                    {"rows", fit.rows.at(gen)},
                    {"mape_before", fit.mape_before.at(gen)},
                    {"mape_after", fit.mape_after.at(gen)},
                    {"fractions", std::move(fractions)}});
  }
  return {{"schema", kCalibrateSchema}, {"generations", std::move(gens)}, {"toml", toml}};
}

}  // namespace paratune
