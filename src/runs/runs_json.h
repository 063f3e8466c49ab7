// The JSON documents of `paratune runs` (docs/json.md): paratune.runs.record/1,
// paratune.runs.list/1, paratune.runs.show/1, paratune.runs.compare/1,
// paratune.runs.baselines/1. The documents are structs with one field list each
// (schema/registry_documents.h), filled here from the registry's records; figure keys are the
// names of kMetrics (run_record.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "runs/registry.h"

namespace paratune {

nlohmann::json RecordResultJson(const RecordResult& r, const std::string& where);
// `total`: the runs that matched, of which `runs` holds the newest (runs.size() when absent).
nlohmann::json RunListJson(const std::vector<RunRecord>& runs, std::optional<int64_t> total = std::nullopt);
nlohmann::json RunShowJson(const RunRecord& run);
nlohmann::json ComparisonJson(const Comparison& c);
nlohmann::json BaselinesJson(const std::vector<Baseline>& b);

}  // namespace paratune
