// The JSON form of `paratune simulate`, schema "paratune.simulate/1" (docs/json.md): the layout's
// schedule, its step and pipeline time, and per stage the pass times and the simulated
// breakdown (timeline/breakdown.h vocabulary), in-flight micro-batches and pending weight
// gradients; with --timeline, the simulated timeline. Times in seconds. Written and read back
// from one field list per struct (step/simulate_json.cc).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>

#include "step/compose.h"

namespace paratune {

inline constexpr const char* kSimulateSchema = "paratune.simulate/1";

// The closed-form pipeline time of the estimate's stages (Narayanan et al. 2021, Sec. 2.2), as a
// reference beside the simulation: ideal and bubble seconds, without transfers or DP.
struct ClosedFormReference {
  double ideal_s = 0;
  double bubble_s = 0;
};
ClosedFormReference ClosedFormOf(const Estimate& e);

// One pipeline stage of the document: its passes as the estimate gave them (`passes.index` is
// the stage) and what the simulation measured on it.
struct SimulatedStage {
  StageEstimate passes;
  StageFigures figures;
};

// The document: the step's figures, the stages, the Chrome-trace file written beside it (empty
// for none) and, with --timeline, the simulated timeline.
struct SimulateDocument {
  std::string model;
  std::string gpu;
  int gpus = 0;
  Layout layout;
  Training training;
  std::string schedule;
  int64_t micro_batches = 0;
  int64_t simulated_micro_batches = 0;
  bool extrapolated = false;
  double p2p_time_s = 0;
  double step_time_s = 0;
  double pipeline_time_s = 0;
  ClosedFormReference closed_form;
  TimeBreakdown time;
  std::string trace;
  std::vector<SimulatedStage> stages;
  std::optional<Timeline> timeline;
};

// The document of a composed step; with `timeline`, the step's recorded timeline goes in.
SimulateDocument SimulateDocumentOf(const StepResult& r, const std::string& trace, bool timeline);
nlohmann::json SimulateToJson(const SimulateDocument& d);
// The same for a step without its timeline (`trace`: the Chrome-trace file written beside it).
nlohmann::json SimulateToJson(const StepResult& r, const std::string& trace);
// The document back; throws InputError naming the file (`where`) and field.
SimulateDocument SimulateFromJson(const nlohmann::json& doc, const std::string& where);

// The simulated timeline as `paratune simulate --json --timeline` adds it (key "timeline"):
// {"stages", "streams", "columns": [stage, stream, phase, micro_batch, start_s, end_s],
// "events": [[...], ...]}, phases by their short names (F, B, W, send, recv, ...).
nlohmann::json TimelineToJson(const Timeline& t);

}  // namespace paratune
