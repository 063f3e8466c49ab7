#include "step/estimate_json.h"

#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "step/estimate_fields.h"

namespace paratune {

using nlohmann::json;

using namespace estimate_fields;

json LayoutToJson(const Layout& l, const Training& t) {
  json j = json::object();
  JsonWriter w(j);
  LayoutFields(l, t, w);
  return j;
}

void ReadLayout(const JsonView& node, Layout& l, Training& t) {
  JsonReader r(node);
  LayoutFields(l, t, r);
}

json TimeBreakdownToJson(const TimeBreakdown& t) {
  json j = json::object();
  JsonWriter w(j);
  TimeFields(t, w);
  return j;
}

void ReadTimeBreakdown(const JsonView& node, TimeBreakdown& t) {
  JsonReader r(node);
  TimeFields(t, r);
}

json EstimateToJson(const Estimate& e, const std::optional<TrainingBudget>& budget) {
  json j = json::object();
  JsonWriter w(j);
  WholeEstimateFields(e, w, budget);
  return j;
}

Estimate EstimateFromJson(const json& doc, const std::string& where) {
  return ReadDocument<Estimate>(doc, where, kEstimateSchema, [](Estimate& e, JsonReader& r) { EstimateFields(e, r); });
}

Estimate EstimateFromJson(const JsonView& node) {
  Estimate e;
  JsonReader r(node);
  EstimateFields(e, r);
  return e;
}

}  // namespace paratune
