#include "runs/registry_metrics.h"

#include <map>
#include <string_view>

#include "runs/registry.h"
#include "util/prometheus_text.h"

namespace paratune {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A figure's name in base units (Prometheus naming, prometheus.io/docs/practices/naming:
// seconds, bytes, ratios for fractions; one unit suffix).
std::string BaseUnitName(std::string name, std::string_view unit) {
  if (unit == "fraction") return name + "_ratio";
  if (unit == "s" && EndsWith(name, "_s")) return name.substr(0, name.size() - 2) + "_seconds";
  if (unit == "GPU-h" && EndsWith(name, "_hours")) return name.substr(0, name.size() - 6) + "_seconds";
  if (const size_t at = name.find("_per_s"); at != std::string::npos && (at + 6 == name.size() || name[at + 6] == '_'))
    return name.replace(at, 6, "_per_second");
  return name;
}

std::vector<std::pair<std::string, std::string>> RunLabels(const RunRecord& r) {
  return {{"run", r.name}, {"model", r.model}, {"cluster", r.cluster}, {"gpu", r.gpu}};
}

// Every figure of kMetrics the runs have, a family each (tokens per hour is tokens per second
// times the job's GPUs and 3,600: the per-second figure stands for it).
void AddRunFigures(const std::vector<RunRecord>& runs, std::vector<MetricFamily>& out) {
  for (const MetricInfo& m : kMetrics) {
    if (m.id == Metric::kTokensPerHour) continue;
    MetricFamily f{PrometheusRunMetricName(m), std::string(m.description) + " (" + m.unit + ")", "gauge", {}};
    for (const RunRecord& r : runs)
      for (const auto& [side, v] : {std::pair{"measured", r[m.id].measured}, {"predicted", r[m.id].predicted}}) {
        if (!HasFigure(v)) continue;
        auto labels = RunLabels(r);
        labels.emplace_back("side", side);
        f.samples.push_back({std::move(labels), v});
      }
    if (!f.samples.empty()) out.push_back(std::move(f));
  }
}

}  // namespace

std::string PrometheusRunMetricName(const MetricInfo& m) { return "paratune_run_" + BaseUnitName(m.name, m.unit); }

std::string PrometheusPolicyMetricName(const PolicyMetricInfo& m) {
  return "paratune_cluster_" + BaseUnitName(m.name, m.unit);
}

double PrometheusPolicyMetricScale(const PolicyMetricInfo& m) { return std::string_view(m.unit) == "GPU-h" ? 3600 : 1; }

std::string RegistryMetricsText(Database& db) {
  ListFilter all;
  all.limit = kMetricsRunLimit;
  const std::vector<RunRecord> runs = List(db, all);
  std::map<std::string, const RunRecord*> by_name;
  for (const RunRecord& r : runs) by_name[r.name] = &r;
  std::vector<MetricFamily> out = {
      {"paratune_runs", "Runs in the registry.", "gauge", {{{}, static_cast<double>(CountRuns(db, ListFilter{}))}}}};
  AddRunFigures(runs, out);
  MetricFamily findings{
      "paratune_run_findings", "Findings of diagnose recorded with the run, by severity.", "gauge", {}};
  for (const auto& row :
       db.Query("SELECT run, severity, COUNT(*) FROM findings GROUP BY run, severity ORDER BY run, severity"))
    if (const auto it = by_name.find(AsText(row[0])); it != by_name.end()) {
      auto labels = RunLabels(*it->second);
      labels.emplace_back("severity", AsText(row[1]));
      findings.samples.push_back({std::move(labels), static_cast<double>(AsInt(row[2]))});
    }
  if (!findings.samples.empty()) out.push_back(std::move(findings));
  std::map<std::string, std::vector<MetricSample>> policy;
  for (const auto& row : db.Query("SELECT run, policy, metric, value FROM policy_figures ORDER BY run, policy"))
    for (const PolicyMetricInfo& m : kPolicyMetrics)
      if (AsText(row[2]) == m.name && by_name.count(AsText(row[0])))
        policy[m.name].push_back(
            {{{"run", AsText(row[0])}, {"policy", AsText(row[1])}}, AsDouble(row[3]) * PrometheusPolicyMetricScale(m)});
  for (const PolicyMetricInfo& m : kPolicyMetrics)
    if (auto it = policy.find(m.name); it != policy.end())
      out.push_back({PrometheusPolicyMetricName(m),
                     std::string(m.description) + " in the cluster replay recorded with the run, by policy.", "gauge",
                     std::move(it->second)});
  return WritePrometheusText(out);
}

}  // namespace paratune
