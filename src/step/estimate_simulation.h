// The cost model's step run through the pipeline simulator: each rank's forward, backward and
// weight-gradient times from an Estimate, split evenly over its virtual stages, with the PP
// send/receive time, the DP gradient reduction and the optimizer. `paratune simulate` prints it;
// `paratune analyze` runs the same breakdown code over its timeline to set the prediction beside
// a measured trace.
#pragma once

#include "step/estimate.h"
#include "pipeline/schedule.h"
#include "pipeline/simulator.h"

namespace paratune {

// The schedule the layout implies: interleaved when vp > 1, else 1F1B.
ScheduleKind DefaultSchedule(const Layout& l);

SimulationResult SimulateEstimate(const Estimate& e, ScheduleKind kind, bool record_timeline);

}  // namespace paratune
