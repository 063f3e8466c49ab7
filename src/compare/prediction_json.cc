#include "compare/prediction_json.h"

#include <nlohmann/json.hpp>

#include "util/json_two_way.h"

namespace paratune {
namespace {

template <class T, class V>
void SharesFields(T& s, V& v) {
  v("compute_pct", s.compute_pct);
  v("non_compute_pct", s.non_compute_pct);
  v("idle_pct", s.idle_pct);
}

template <class T, class V>
void PredictionFields(T& p, V& v) {
  v("measured_from_steps", p.measured_from_steps);
  v("measured_step_time_s", p.measured_step_time_s);
  v("predicted_step_time_s", p.predicted_step_time_s);
  v("step_time_error", p.step_time_error);
  v("measured_mfu", p.measured_mfu);
  v("predicted_mfu", p.predicted_mfu);
  v("mfu_impossible", p.mfu_impossible);
  v.Nullable("mfu_warning", p.mfu_warning);
  v.Nested("measured", p.measured, [](auto& x, auto& w) { SharesFields(x, w); });
  v.Nested("predicted", p.predicted, [](auto& x, auto& w) { SharesFields(x, w); });
  v.Nullable("measured_peak_allocated_bytes", p.measured_peak_allocated_bytes, Presence::kLater);
  v.Nullable("predicted_peak_allocated_bytes", p.predicted_peak_allocated_bytes, Presence::kLater);
}

TimeShares SharesOf(const GpuTimeBreakdown& b) { return {b.compute_pct(), b.non_compute_pct(), b.idle_pct()}; }

}  // namespace

PredictionFigures FiguresOf(const PredictionComparison& p) {
  return {p.measured_from_steps,
          p.measured_step_time_s,
          p.predicted_step_time_s,
          p.step_time_error,
          p.measured_mfu,
          p.predicted_mfu,
          p.mfu_impossible,
          p.mfu_warning,
          SharesOf(p.measured),
          SharesOf(p.predicted),
          p.measured_peak_allocated_bytes,
          p.predicted_peak_allocated_bytes};
}

nlohmann::json PredictionJson(const PredictionFigures& p) {
  return WriteJson(p, [](const auto& x, JsonWriter& w) { PredictionFields(x, w); });
}

PredictionFigures PredictionFromJson(const JsonView& node) {
  PredictionFigures p;
  JsonReader r(node);
  PredictionFields(p, r);
  return p;
}

}  // namespace paratune
