// The JSON form of `paratune simulate`, schema "paratune.simulate/1" (docs/json.md): the layout's
// schedule, its step and pipeline time, and per stage the pass times and the simulated
// breakdown (timeline/breakdown.h vocabulary), in-flight micro-batches and pending weight
// gradients. Times in seconds.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "step/compose.h"

namespace paratune {

inline constexpr const char* kSimulateSchema = "paratune.simulate/1";

// `trace`: the Chrome-trace file written beside it, or empty.
nlohmann::json SimulateToJson(const StepResult& r, const std::string& trace);

// The simulated timeline as `paratune simulate --json --timeline` adds it (key "timeline"):
// {"stages", "streams", "columns": [stage, stream, phase, micro_batch, start_s, end_s],
// "events": [[...], ...]}, phases by their short names (F, B, W, send, recv, ...).
nlohmann::json TimelineToJson(const Timeline& t);

// The closed-form pipeline time of the estimate's stages (Narayanan et al. 2021, Sec. 2.2), as a
// reference beside the simulation: ideal and bubble seconds, without transfers or DP.
struct ClosedFormReference {
  double ideal_s = 0;
  double bubble_s = 0;
};
ClosedFormReference ClosedFormOf(const Estimate& e);

}  // namespace paratune
