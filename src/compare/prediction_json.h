// The "prediction" member of `paratune analyze --json` (schema paratune.analyze/1, docs/json.md):
// the measured and predicted step time, MFU and GPU-time shares side by side, as the document
// holds them (PredictionFigures: the breakdowns as shares), written and read from one field list.
#pragma once

#include <limits>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "compare/prediction.h"
#include "util/json_fields.h"

namespace paratune {

// A breakdown's shares of its window, in percent (GpuTimeBreakdown's *_pct()).
struct TimeShares {
  double compute_pct = 0;
  double non_compute_pct = 0;
  double idle_pct = 0;
};

// PredictionComparison as the document holds it.
struct PredictionFigures {
  bool measured_from_steps = false;
  double measured_step_time_s = 0;
  double predicted_step_time_s = 0;
  double step_time_error = 0;
  double measured_mfu = 0;
  double predicted_mfu = 0;
  bool mfu_impossible = false;
  std::string mfu_warning;  // null in the document when empty
  TimeShares measured;
  TimeShares predicted;
  double measured_peak_allocated_bytes = std::numeric_limits<double>::quiet_NaN();  // null: no memory events
  double predicted_peak_allocated_bytes = std::numeric_limits<double>::quiet_NaN();
};

PredictionFigures FiguresOf(const PredictionComparison& p);
nlohmann::json PredictionJson(const PredictionFigures& p);
inline nlohmann::json PredictionJson(const PredictionComparison& p) { return PredictionJson(FiguresOf(p)); }
// The member at `node` (an object); throws InputError naming the file and field.
PredictionFigures PredictionFromJson(const JsonView& node);

}  // namespace paratune
