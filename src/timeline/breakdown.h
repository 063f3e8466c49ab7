// Breakdown: where each rank's step time went (computing, communicating with nothing to compute,
// idle in the pipeline bubble), computed from any Timeline, simulated or measured.
#pragma once

#include <vector>

#include "timeline/timeline.h"

namespace paratune {

struct Interval {
  double start_s = 0;
  double end_s = 0;
};

struct RankBreakdown {
  int rank = 0;
  double busy_s = 0;          // union of compute events (F, B, W, optimizer, other)
  double comm_s = 0;          // union of communication events (send, recv, all-reduce)
  double exposed_comm_s = 0;  // communication while the rank computes nothing
  double idle_s = 0;          // step time - busy_s: compute units idle
  double bubble_s = 0;        // idle_s - exposed_comm_s: neither computing nor communicating
  double bubble_share = 0;    // bubble_s / step time
};

struct TimelineBreakdown {
  double start_s = 0;      // earliest event start
  double end_s = 0;        // latest event end
  double step_time_s = 0;  // end_s - start_s, the same window for every rank
  std::vector<RankBreakdown> ranks;  // one per rank 0..Timeline::ranks-1
};

TimelineBreakdown ComputeBreakdown(const Timeline& t);

// One rank's figures over the window [start_s, end_s] from its compute and communication
// intervals (any order, may overlap; sorted in place). ComputeBreakdown and the pipeline
// simulator share it.
RankBreakdown BreakdownRank(std::vector<Interval>& compute, std::vector<Interval>& comm, double start_s,
                            double end_s);

}  // namespace paratune
