#include "step/estimate_json.h"

#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "step/estimate_fields.h"

namespace paratune {

using nlohmann::json;

using namespace estimate_fields;

json LayoutToJson(const Layout& l, const Training& t) {
  return WriteJson(l, [&t](const Layout& x, JsonWriter& w) { LayoutFields(x, t, w); });
}

void ReadLayout(const JsonView& node, Layout& l, Training& t) {
  JsonReader r(node);
  LayoutFields(l, t, r);
}

json TimeBreakdownToJson(const TimeBreakdown& t) {
  return WriteJson(t, [](const auto& x, JsonWriter& w) { TimeFields(x, w); });
}

json EstimateToJson(const Estimate& e, const std::optional<TrainingBudget>& budget) {
  return WriteJson(e, [&budget](const auto& x, JsonWriter& w) { WholeEstimateFields(x, w, budget); });
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
