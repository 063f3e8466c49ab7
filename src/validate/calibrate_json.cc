#include "validate/calibrate_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

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

nlohmann::json RunsCalibrationJson(const RunsCalibration& rc, const std::string& cluster, const std::string& toml) {
  nlohmann::json j = CalibrationFitJson(rc.fit, toml);
  nlohmann::json rows = nlohmann::json::array();
  for (const RunsCalibrationRow& r : rc.rows)
    rows.push_back({{"name", r.id},
                    {"generation", r.generation},
                    {"measured_tokens_per_s_per_gpu", r.measured_tokens_per_s_per_gpu},
                    {"before_tokens_per_s_per_gpu", r.before},
                    {"after_tokens_per_s_per_gpu", r.after},
                    {"loo_tokens_per_s_per_gpu", r.loo}});
  nlohmann::json candidates = nlohmann::json::array();
  for (const RunsCalibrationCandidate& c : rc.candidates)
    candidates.push_back(
        {{"fractions", kFitFractionsNames.Name(c.fractions)}, {"mape_after", c.mape_after}, {"mape_loo", c.mape_loo}});
  j["from_runs"] = {{"cluster", cluster},
                    {"rounds", rc.rounds},
                    {"fractions", kFitFractionsNames.Name(rc.chosen)},
                    {"candidates", std::move(candidates)},
                    {"runs", rc.rows.size()},
                    {"mape_before", rc.mape_before},
                    {"mape_after", rc.mape_after},
                    {"mape_loo", rc.mape_loo},
                    {"mape_nested", std::isnan(rc.mape_nested) ? nlohmann::json() : nlohmann::json(rc.mape_nested)},
                    {"rows", std::move(rows)}};
  return j;
}

namespace {

nlohmann::json ErrorStatsJson(const ErrorStats& s) {
  return {{"n", s.n}, {"mape", s.mean}, {"median", s.median}, {"p90", s.p90}, {"max", s.max}};
}

}  // namespace

nlohmann::json CrossValidationJson(const CrossValidation& cv, const std::string& files) {
  nlohmann::json j = {{"schema", "paratune.cross_validation/1"},
                      {"files", files},
                      {"group", "source"},
                      {"in_sample", ErrorStatsJson(cv.in_sample)},
                      {"held_out", ErrorStatsJson(cv.held_out)},
                      {"sources", nlohmann::json::array()}};
  for (const SourceHoldout& h : cv.sources)
    j["sources"].push_back({{"source", h.source},
                            {"in_sample", ErrorStatsJson(h.in_sample)},
                            {"held_out", ErrorStatsJson(h.held_out)},
                            {"uncovered_generations", h.uncovered_generations}});
  return j;
}

}  // namespace paratune
