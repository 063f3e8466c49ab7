// The one breakdown vocabulary of paratune: where a GPU's time went over a window, for a
// simulated step and a measured trace alike (docs/architecture.md, "Breakdown vocabulary").
//   compute       some computation runs (the union of compute intervals)
//   non-compute   communication or memory traffic runs and nothing computes: exposed communication
//   idle          nothing runs: the pipeline bubble, host and data-loader waits
// compute + non-compute + idle = window. HTA calls the same three COMPUTATION, NON-COMPUTE and
// idle time, and the window its kernel time; those names appear only where HTA's figures are
// printed (paratune analyze).
#pragma once

#include <vector>

#include "timeline/timeline.h"

namespace paratune {

struct Interval {
  double start_s = 0;
  double end_s = 0;
};

struct GpuTimeBreakdown {
  double window_s = 0;       // end - start of the window analysed
  double compute_s = 0;      // |U(compute)|
  double non_compute_s = 0;  // |U(other) \ U(compute)|: exposed communication and memory traffic
  double idle_s = 0;         // window - compute - non-compute
  double comm_s = 0;         // |U(other)|, hidden or not
  double compute_pct() const { return Pct(compute_s); }
  double non_compute_pct() const { return Pct(non_compute_s); }
  double idle_pct() const { return Pct(idle_s); }
  double Pct(double x) const { return window_s > 0 ? 100.0 * x / window_s : 0.0; }
  // Share of the other intervals hidden under compute, percent; NaN when there are none.
  double overlap_pct() const;
};

// The breakdown of one GPU over [start_s, end_s] from its compute and other (communication,
// memory) intervals, in any order and possibly overlapping (sorted and merged in place).
GpuTimeBreakdown BreakdownIntervals(std::vector<Interval>& compute, std::vector<Interval>& other, double start_s,
                                    double end_s);

// Every rank of a Timeline over one common window, from the earliest event start to the latest
// end; compute phases (IsComputePhase) against the rest.
struct TimelineBreakdown {
  double start_s = 0;
  double end_s = 0;
  double step_time_s = 0;               // end_s - start_s
  std::vector<GpuTimeBreakdown> ranks;  // one per rank 0..Timeline::ranks-1
};

TimelineBreakdown ComputeBreakdown(const Timeline& t);

}  // namespace paratune
