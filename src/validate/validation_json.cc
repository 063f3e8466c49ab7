#include "validate/validation_json.h"

namespace paratune {
namespace {

nlohmann::json RankingJson(const RankingStats& r) {
  nlohmann::json dis = nlohmann::json::array();
  for (const auto& [a, b] : r.disagreements) dis.push_back({{"measured_faster", a}, {"other", b}});
  return {{"pairs", r.pairs}, {"agree", r.agree}, {"disagreements", dis}};
}

}  // namespace

nlohmann::json ErrorStatsJson(const ErrorStats& s) {
  return {{"n", s.n}, {"mape", s.mean}, {"median_ape", s.median}, {"p90_ape", s.p90}, {"max_ape", s.max}};
}

nlohmann::json ValidationJson(const ValidationReport& rep, const std::string& file) {
  nlohmann::json j = {{"schema", kValidateSchema}, {"file", file}};
  nlohmann::json rows = nlohmann::json::array();
  for (const RunPrediction& p : rep.rows) {
    nlohmann::json r = {{"id", p.run->id},
                        {"measured_tokens_per_s_per_gpu", p.run->target_tokens_per_s_per_gpu},
                        {"predicted", p.predicted}};
    if (p.predicted) {
      r["predicted_tokens_per_s_per_gpu"] = p.predicted_tokens_per_s_per_gpu;
      r["ape"] = p.ape;
      r["fits"] = p.fits;
    } else {
      r["reason"] = p.reason;
    }
    if (!p.run->assumptions.empty()) r["assumptions"] = p.run->assumptions;
    rows.push_back(r);
  }
  j["rows"] = rows;
  j["overall"] = ErrorStatsJson(rep.overall);
  j["overall_without_low_confidence"] = ErrorStatsJson(rep.overall_without_low_confidence);
  j["korthikanti_step_time"] = ErrorStatsJson(rep.korthikanti_step_time);
  nlohmann::json groups = nlohmann::json::array();
  for (const GroupStats& g : rep.groups)
    groups.push_back({{"dimension", g.dimension}, {"value", g.value}, {"stats", ErrorStatsJson(g.stats)}});
  j["groups"] = groups;
  j["ranking"] = RankingJson(rep.ranking);
  j["ranking_without_low_confidence"] = RankingJson(rep.ranking_without_low_confidence);
  nlohmann::json unmapped = nlohmann::json::array();
  for (const auto& [text, ids] : rep.unmapped_sharding) unmapped.push_back({{"text", text}, {"ids", ids}});
  j["unmapped_sharding"] = unmapped;
  return j;
}

}  // namespace paratune
