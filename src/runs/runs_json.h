// The JSON documents of `paratune runs` (docs/json.md): paratune.runs.record/1,
// paratune.runs.list/1, paratune.runs.show/1, paratune.runs.compare/1,
// paratune.runs.baselines/1. Figure keys are the names of kMetrics (run_record.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "runs/registry.h"

namespace paratune {

// The metric table (kMetrics) as `metrics[]`: name, unit, better ("higher"/"lower"), step_term,
// description. Every document but record/1 carries it, so readers need no copy of the list.
nlohmann::json MetricsJson();
// {"mfu": {"measured": x|null, "predicted": y|null}, ...} over every metric of kMetrics.
nlohmann::json FiguresJson(const RunRecord& r);
nlohmann::json RecordResultJson(const RecordResult& r, const std::string& where);
// `total`: the runs that matched, of which `runs` holds the newest (runs.size() when absent).
nlohmann::json RunListJson(const std::vector<RunRecord>& runs, std::optional<int64_t> total = std::nullopt);
nlohmann::json RunShowJson(const RunRecord& run);
nlohmann::json ComparisonJson(const Comparison& c);
nlohmann::json BaselinesJson(const std::vector<Baseline>& b);

}  // namespace paratune
