#include <nlohmann/json.hpp>

#include "validate/validation_json.h"

namespace paratune {
namespace {

nlohmann::json RankingJson(const RankingStats& r) {
  nlohmann::json dis = nlohmann::json::array();
  for (const auto& [a, b] : r.disagreements) dis.push_back({{"measured_faster", a}, {"other", b}});
  return {{"pairs", r.pairs}, {"agree", r.agree}, {"disagreements", dis}};
}

nlohmann::json ComparedJson(const ComparedStats& s) {
  return {{"ours", ErrorStatsJson(s.ours)},
          {"simumax", ErrorStatsJson(s.simumax)},
          {"ours_on_simumax_rows", ErrorStatsJson(s.ours_on_simumax_rows)}};
}

nlohmann::json ComparedErrorsJson(const ComparedErrors& c) {
  nlohmann::json groups = nlohmann::json::array();
  for (const GroupComparison& g : c.groups)
    groups.push_back({{"dimension", g.dimension}, {"value", g.value}, {"stats", ComparedJson(g.stats)}});
  return {{"overall", ComparedJson(c.overall)}, {"groups", groups}};
}

// An optional error: the fraction, or null.
nlohmann::json Optional(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

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
      r["predicted_step_time_s"] = p.predicted_step_time_s;
      r["predicted_peak_allocated_bytes"] = p.predicted_peak_allocated_bytes;
      r["memory_ape"] = Optional(p.memory_ape);
      r["simumax_memory_ape"] = Optional(p.simumax_memory_ape);
      r["step_time_ape"] = Optional(p.step_time_ape);
      r["simumax_step_time_ape"] = Optional(p.simumax_step_time_ape);
    } else {
      r["reason"] = p.reason;
    }
    const PublishedRun& run = *p.run;
    for (auto [key, v] : {std::pair{"measured_step_time_s", run.target_step_time_s},
                          std::pair{"measured_peak_allocated_bytes", run.measured_peak_memory_bytes},
                          std::pair{"simumax_peak_allocated_bytes", run.simumax_peak_memory_bytes},
                          std::pair{"simumax_step_time_s", run.simumax_step_time_s}})
      r[key] = v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr);
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
  j["memory"] = ComparedErrorsJson(rep.memory);
  j["step_time"] = ComparedErrorsJson(rep.step_time);
  j["ranking"] = RankingJson(rep.ranking);
  j["ranking_without_low_confidence"] = RankingJson(rep.ranking_without_low_confidence);
  nlohmann::json unmapped = nlohmann::json::array();
  for (const auto& [text, ids] : rep.unmapped_sharding) unmapped.push_back({{"text", text}, {"ids", ids}});
  j["unmapped_sharding"] = unmapped;
  return j;
}

}  // namespace paratune
