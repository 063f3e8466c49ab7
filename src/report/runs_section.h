// What the sections of the run registry's documents (paratune.runs.list/1, .show/1,
// .compare/1, .baselines/1; docs/runs.md) share: each document read into its struct by its one
// field list (schema/registry_documents.h), and the metric table each carries (written once in
// the registry's kMetrics), so that no section repeats the list of metrics or a field name.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/registry_documents.h"

namespace paratune {

// Each throws InputError naming `where` and the field when `doc` is not a whole document of its
// schema.
RunsListDocument ReadRunsList(const nlohmann::json& doc, const std::string& where);
RunShowDocument ReadRunShow(const nlohmann::json& doc, const std::string& where);
RunsCompareDocument ReadRunsCompare(const nlohmann::json& doc, const std::string& where);
RunsBaselinesDocument ReadRunsBaselines(const nlohmann::json& doc, const std::string& where);

// The unit of `metric` in the table, "" when the table lacks it.
std::string MetricUnit(const std::vector<RegistryMetric>& metrics, const std::string& metric);

}  // namespace paratune
