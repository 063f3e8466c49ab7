// The JSON form of an Estimate, schema "paratune.estimate/1" (docs/json.md), written and read
// back from one field list (step/estimate_fields.h). Field names carry their unit (_s, _bytes,
// _per_s); values are SI.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>

#include "step/estimate.h"
#include "step/time_to_train.h"
#include "util/json_fields.h"

namespace paratune {

inline constexpr const char* kEstimateSchema = "paratune.estimate/1";

nlohmann::json LayoutToJson(const Layout& l, const Training& t);
// The `layout` object back: throws InputError naming the file and field.
void ReadLayout(const JsonView& node, Layout& l, Training& t);
// The step-time terms (kStepTerms) and their total.
nlohmann::json TimeBreakdownToJson(const TimeBreakdown& t);
// With a budget, `time_to_train` is the time to train it at this estimate's throughput
// (step/time_to_train.h); without one it is null.
nlohmann::json EstimateToJson(const Estimate& e, const std::optional<TrainingBudget>& budget = std::nullopt);
// The document back as the Estimate that wrote it (less what the JSON does not hold: the
// schedule's name beside the layout's, the peak allocated bytes). Throws InputError naming the
// file and field: `where` is the file; the view form reads an estimate inside another document
// (a plan's `winner`) without the schema check.
Estimate EstimateFromJson(const nlohmann::json& doc, const std::string& where);
Estimate EstimateFromJson(const JsonView& node);

}  // namespace paratune
