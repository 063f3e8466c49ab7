#include "report/runs_section.h"

#include "util/json_two_way.h"

namespace paratune {

RunsListDocument ReadRunsList(const nlohmann::json& doc, const std::string& where) {
  return ReadDocument<RunsListDocument>(doc, where, kRunsListSchema,
                                        [](auto& d, auto& r) { registry_fields::ListFields(d, r); });
}

RunShowDocument ReadRunShow(const nlohmann::json& doc, const std::string& where) {
  return ReadDocument<RunShowDocument>(doc, where, kRunsShowSchema,
                                       [](auto& d, auto& r) { registry_fields::ShowFields(d, r); });
}

RunsCompareDocument ReadRunsCompare(const nlohmann::json& doc, const std::string& where) {
  return ReadDocument<RunsCompareDocument>(doc, where, kRunsCompareSchema,
                                           [](auto& d, auto& r) { registry_fields::CompareFields(d, r); });
}

RunsBaselinesDocument ReadRunsBaselines(const nlohmann::json& doc, const std::string& where) {
  return ReadDocument<RunsBaselinesDocument>(doc, where, kRunsBaselinesSchema,
                                             [](auto& d, auto& r) { registry_fields::BaselinesFields(d, r); });
}

std::string MetricUnit(const std::vector<RegistryMetric>& metrics, const std::string& metric) {
  for (const RegistryMetric& m : metrics)
    if (m.name == metric) return m.unit;
  return "";
}

}  // namespace paratune
