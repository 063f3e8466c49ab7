#include "runs/runs_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "schema/registry_schemas.h"

namespace paratune {
namespace {

nlohmann::json JsonNumberOrNull(double v) {
  return HasFigure(v) && std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json Tags(const RunRecord& r) {
  nlohmann::json t = nlohmann::json::object();
  for (const auto& [k, v] : r.tags) t[k] = v;
  return t;
}

nlohmann::json Summary(const RunRecord& r) {
  return {{"name", r.name},
          {"created_utc", r.created_utc},
          {"cluster", r.cluster},
          {"model", r.model},
          {"gpu", r.gpu},
          {"gpus", r.gpus},
          {"software", r.software},
          {"tags", Tags(r)},
          {"figures", FiguresJson(r)}};
}

}  // namespace

nlohmann::json MetricsJson() {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& m : kMetrics)
    a.push_back({{"name", m.name},
                 {"unit", m.unit},
                 {"better", m.better == Better::kHigher ? "higher" : "lower"},
                 {"step_term", m.step_term},
                 {"description", m.description}});
  return a;
}

nlohmann::json FiguresJson(const RunRecord& r) {
  nlohmann::json f = nlohmann::json::object();
  for (const auto& m : kMetrics)
    f[m.name] = {{"measured", JsonNumberOrNull(r[m.id].measured)}, {"predicted", JsonNumberOrNull(r[m.id].predicted)}};
  return f;
}

nlohmann::json RecordResultJson(const RecordResult& r, const std::string& where) {
  return {{"schema", kRunsRecordSchema},
          {"db", where},
          {"name", r.name},
          {"created", r.created},
          {"files_added", r.files_added},
          {"files_unchanged", r.files_unchanged}};
}

nlohmann::json RunListJson(const std::vector<RunRecord>& runs, std::optional<int64_t> total) {
  nlohmann::json j = {{"schema", kRunsListSchema},
                      {"metrics", MetricsJson()},
                      {"total", total.value_or(static_cast<int64_t>(runs.size()))},
                      {"runs", nlohmann::json::array()}};
  for (const auto& r : runs) j["runs"].push_back(Summary(r));
  return j;
}

nlohmann::json RunShowJson(const RunRecord& r) {
  nlohmann::json j = Summary(r);
  j["schema"] = kRunsShowSchema;
  j["metrics"] = MetricsJson();
  j["content_hash"] = r.content_hash;
  j["layout"] = r.layout_json.empty() ? nlohmann::json(nullptr) : nlohmann::json::parse(r.layout_json, nullptr, false);
  j["scenario"] =
      r.scenario_json.empty() ? nlohmann::json(nullptr) : nlohmann::json::parse(r.scenario_json, nullptr, false);
  j["sources"] = nlohmann::json::array();
  for (const auto& s : r.sources)
    j["sources"].push_back(
        {{"sha256", s.sha256}, {"schema", s.schema}, {"path", s.path}, {"recorded_utc", s.recorded_utc}});
  j["findings"] = nlohmann::json::array();
  for (const auto& f : r.findings)
    j["findings"].push_back({{"rule", f.rule},
                             {"severity", f.severity},
                             {"title", f.title},
                             {"loss_fraction", JsonNumberOrNull(f.loss_fraction)}});
  j["series"] = nlohmann::json::array();
  for (const auto& s : r.series) {
    nlohmann::json x = nlohmann::json::array(), y = nlohmann::json::array();
    for (double v : s.x) x.push_back(JsonNumberOrNull(v));
    for (double v : s.y) y.push_back(JsonNumberOrNull(v));
    j["series"].push_back({{"kind", s.kind}, {"source", s.source}, {"x", x}, {"y", y}});
  }
  j["policies"] = nlohmann::json::array();
  for (const auto& p : r.policies) {
    nlohmann::json f = nlohmann::json::object();
    for (const auto& [k, v] : p.figures) f[k] = JsonNumberOrNull(v);
    j["policies"].push_back({{"policy", p.policy}, {"figures", f}});
  }
  return j;
}

nlohmann::json ComparisonJson(const Comparison& c) {
  nlohmann::json j = {
      {"schema", kRunsCompareSchema},
      {"metrics", MetricsJson()},
      {"a", c.a.name},
      {"b", c.b.name},
      {"baseline_scope", c.baseline_scope.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.baseline_scope)},
      {"figures", nlohmann::json::array()},
      {"breakdown",
       {{"side", c.terms_measured ? "measured" : "predicted"},
        {"step_time_delta_s", JsonNumberOrNull(c.step_delta_s)},
        {"terms", nlohmann::json::array()}}}};
  for (const auto& d : c.figures) {
    const auto& info = InfoOf(d.metric);
    j["figures"].push_back({{"metric", info.name},
                            {"unit", info.unit},
                            {"better", info.better == Better::kHigher ? "higher" : "lower"},
                            {"side", d.measured ? "measured" : "predicted"},
                            {"a", JsonNumberOrNull(d.a)},
                            {"b", JsonNumberOrNull(d.b)},
                            {"abs_diff", JsonNumberOrNull(d.abs_diff)},
                            {"rel_diff", JsonNumberOrNull(d.rel_diff)}});
  }
  if (!HasFigure(c.step_delta_s))
    j["breakdown"] = nullptr;
  else
    for (const auto& t : c.terms)
      j["breakdown"]["terms"].push_back(
          {{"metric", InfoOf(t.metric).name}, {"delta_s", t.delta_s}, {"share", JsonNumberOrNull(t.share)}});
  return j;
}

nlohmann::json BaselinesJson(const std::vector<Baseline>& b) {
  nlohmann::json j = {
      {"schema", kRunsBaselinesSchema}, {"metrics", MetricsJson()}, {"baselines", nlohmann::json::array()}};
  for (const auto& x : b) j["baselines"].push_back({{"scope", x.scope}, {"run", x.run}, {"set_utc", x.set_utc}});
  return j;
}

}  // namespace paratune
