// Sweep: the planner's what-if along one knob: for each value of tp, pp, the micro-batch size,
// the recomputation mode or the precision, the best layout the search finds with that value
// pinned (every other dimension searched as `plan` does), or why none fits. `plan --sweep KNOB`
// prints it and the report draws it (throughput against the knob).
#pragma once

#include <string>
#include <vector>

#include "plan/plan_request.h"
#include "util/enum_names.h"

namespace paratune {

enum class SweepKnob { kTp, kPp, kMbs, kRecompute, kPrecision };
inline constexpr EnumNames<SweepKnob, 5> kSweepKnobNames{{{{SweepKnob::kTp, "tp"},
                                                           {SweepKnob::kPp, "pp"},
                                                           {SweepKnob::kMbs, "mbs"},
                                                           {SweepKnob::kRecompute, "recompute"},
                                                           {SweepKnob::kPrecision, "precision"}}},
                                                         5};

struct SweepPoint {
  std::string value;  // "4", "selective", "fp8"
  bool fits = false;
  Estimate best;       // when fits
  std::string reason;  // when not: the planner's one line
};

struct SweepResult {
  SweepKnob knob = SweepKnob::kTp;
  std::vector<SweepPoint> points;
};

// tp and pp: powers of two up to the GPU count (pp also up to the layers); mbs: 1, 2, 4, 8, 16;
// recompute: none, selective, full; precision: those the GPU has tensor cores for. A knob the
// request pins is overridden point by point.
SweepResult Sweep(const PlanRequest& request, SweepKnob knob);

}  // namespace paratune
