#include "analysis/trace_diff_json.h"

#include <nlohmann/json.hpp>

#include "util/json_two_way.h"

namespace paratune {
namespace {

template <class T, class V>
void SideFields(T& s, V& v) {
  v("ranks", s.selected.ranks);
  v("iterations", s.selected.iterations);
  v("events", s.events);
  v("step_time_s", s.step_time_s);
}

template <class T, class V>
void RowFields(T& r, V& v) {
  v("name", r.name);
  v("change", r.change, kOpChangeNames);
  v("control_count", r.control_count);
  v("test_count", r.test_count);
  v("control_total_s", r.control_total_s);
  v("test_total_s", r.test_total_s);
  v.Derived("diff_count", r.test_count - r.control_count);
  v.Derived("diff_total_s", r.test_total_s - r.control_total_s);
}

template <class T, class V>
void TraceDiffFields(T& d, V& v) {
  v("device", d.device, kDiffDeviceNames);
  v("short_names", d.short_names);
  v.Nested("control", d.control, [](auto& s, auto& w) { SideFields(s, w); });
  v.Nested("test", d.test, [](auto& s, auto& w) { SideFields(s, w); });
  nlohmann::json counts = nlohmann::json::object();
  for (const auto& [change, name] : kOpChangeNames.entries) counts[name] = d.CountOf(change);
  v.Derived("counts", counts);
  v.List("ops", d.rows, [](auto& r, auto& w) { RowFields(r, w); });
}

}  // namespace

nlohmann::json TraceDiffJson(const TraceDiff& d) {
  return WriteJson(d, [](const auto& x, JsonWriter& w) { TraceDiffFields(x, w); });
}

TraceDiff TraceDiffFromJson(const JsonView& node) {
  TraceDiff d;
  JsonReader r(node);
  TraceDiffFields(d, r);
  return d;
}

}  // namespace paratune
