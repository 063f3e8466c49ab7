#include <nlohmann/json.hpp>

#include "compare/prediction_json.h"

namespace paratune {
namespace {

nlohmann::json Shares(const GpuTimeBreakdown& b) {
  return {{"compute_pct", b.compute_pct()}, {"non_compute_pct", b.non_compute_pct()}, {"idle_pct", b.idle_pct()}};
}

}  // namespace

nlohmann::json PredictionJson(const PredictionComparison& p) {
  return {{"measured_from_steps", p.measured_from_steps},
          {"measured_step_time_s", p.measured_step_time_s},
          {"predicted_step_time_s", p.predicted_step_time_s},
          {"step_time_error", p.step_time_error},
          {"measured_mfu", p.measured_mfu},
          {"predicted_mfu", p.predicted_mfu},
          {"mfu_impossible", p.mfu_impossible},
          {"mfu_warning", p.mfu_warning.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.mfu_warning)},
          {"measured", Shares(p.measured)},
          {"predicted", Shares(p.predicted)}};
}

}  // namespace paratune
