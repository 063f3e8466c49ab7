// The JSON form of one run's scenario, schema "paratune.scenario/1" (docs/json.md): the model
// (ModelSpec), the cluster (the GPU chip with its calibration, the fabric, the world size), the
// training shape and the layout: everything the cost model reads, so that a recorded run can be
// estimated again exactly as it was (the run registry stores it beside the measured figures).
// One list of fields per struct (scenario_json.cc) drives both directions; values are SI, the
// enums by their names (the EnumNames tables of their headers).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>

#include "hardware/cluster.h"
#include "layout/layout.h"
#include "model/model_spec.h"

namespace paratune {

inline constexpr const char* kScenarioSchema = "paratune.scenario/1";

struct Scenario {
  ModelSpec model;
  ClusterSpec cluster;
  Training training;
  Layout layout;
};

nlohmann::json ScenarioToJson(const Scenario& s);

// Reads what ScenarioToJson wrote. A member left out keeps the struct's default; a member of
// the wrong type, a negative number, an unknown member or enum name, or a model that
// ValidateModel rejects throws InputError naming `where` and the field ("model.layers").
Scenario ScenarioFromJson(const nlohmann::json& j, const std::string& where);
// The same from JSON text; a parse error is an InputError naming `where` and the byte offset.
Scenario ScenarioFromJsonText(std::string_view text, const std::string& where);

}  // namespace paratune
