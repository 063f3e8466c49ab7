// Cross-rank straggler detection: which rank the others keep waiting for, from communication
// kernel durations and step times, never from start times, so it works however far apart the
// ranks' clocks are.
//
// Method. An NCCL kernel starts on each rank when that rank reaches the collective and cannot
// finish before every rank of the group has arrived; after that all ranks move the same data, so
// the kernels end at about the same moment everywhere. The rank whose kernel is the shortest
// therefore arrived last, and every other rank's kernel is longer by the time it waited for it.
// On each rank the communication kernels (EventKind::kKernel, HtaKernelType kCommunication) are
// taken in start order and grouped by (Collective, "Process Group Name" when the kernel
// carries args); the n-th kernel of a group is matched across the ranks that have the group (at
// least 2), up to the smallest count among them. For each matched collective:
//   last arrival: the rank with the shortest kernel (none when several share the minimum);
//   caused_wait  += median duration - its duration (the typical rank's wait for it);
//   waited (each rank) += its duration - the minimum duration.
// A rank is a straggler, with at least 2 ranks in the input, when
//   it arrived last at >= 50% of its (>= 4) matched collectives and its caused_wait_s is >= 5% of
//   the median rank's total communication kernel time, or
//   its mean step time has a robust z-score >= 3.5 among >= 3 ranks with step times
//   (z = (mean - median) / (1.4826 MAD), Iglewicz & Hoaglin 1993, "How to Detect and Handle
//   Outliers", the modified z-score with its 3.5 cut-off; 1.4826 MAD estimates the standard
//   deviation of normal data).
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <string>
#include <vector>

#include "trace/trace_event.h"
#include "util/collective.h"

namespace paratune {

// One rank's communication kernels (EventKind::kKernel, HtaKernelType kCommunication) by group,
// in start order: all FindStragglers needs of a rank's events, so that ranks analysed apart (by
// other processes, analysis/distributed_analysis.h) are matched from these alone.
struct RankCollectiveTimes {
  // A group of collectives on one rank: (kind, process group name or "" without args).
  using GroupKey = std::pair<Collective, std::string>;
  std::map<GroupKey, std::vector<double>> durations_s;  // per group, in start order
  std::map<GroupKey, std::vector<int64_t>> steps;       // the same kernels' ProfilerStep#N (-1: unknown)
  double total_s = 0;                                   // all communication kernel time
  // The same kernels: 1 where the kernel is on the rank's critical path (critical_path.h); empty
  // without one.
  std::map<GroupKey, std::vector<uint8_t>> on_path;
};

// The communication kernels among `events` (indices into t.events); `event_steps`, when parallel
// to `events`, gives the ProfilerStep#N each was launched in (-1: none); `path_events` (sorted),
// when given, the events of the rank's critical path (fills on_path).
RankCollectiveTimes CollectiveTimesOf(const RankTrace& t, const std::vector<uint32_t>& events,
                                      const std::vector<int64_t>& event_steps = {},
                                      const std::vector<uint32_t>* path_events = nullptr);

struct StragglerInput {
  int rank = 0;
  RankCollectiveTimes comm;          // with steps known, the wait each collective caused is also
                                     // attributed to a step (StragglerReport::by_step)
  std::vector<double> step_times_s;  // per kept iteration
};

struct StragglerRank {
  int rank = 0;
  double mean_step_time_s = 0;      // 0 without step times
  double step_time_robust_z = 0;    // (mean - median over ranks) / (1.4826 * MAD), 0 if MAD == 0
  int64_t collectives_matched = 0;  // matched collectives this rank took part in
  int64_t last_arrivals = 0;        // matched collectives where this rank's kernel was the shortest
                                    // (it arrived last; the others waited for it)
  double caused_wait_s = 0;         // sum over those collectives of (median duration - its duration)
  double waited_s = 0;              // sum over matched collectives of (its duration - min duration)
  bool straggler = false;
  std::string reason;  // one line, empty unless straggler
};

// Per step: which rank the others waited for most in that step's matched collectives. This
// catches intermittent stragglers (one rank's data loader stalling in one step in ten) that the
// whole-run rule above does not flag.
struct StepStraggler {
  int64_t step = 0;
  int rank = -1;             // the rank that caused the most waiting in this step
  double caused_wait_s = 0;  // the wait it caused (sum over its last arrivals of median - its duration)
  double total_wait_s = 0;   // the wait all last arrivals caused in this step
  int64_t collectives = 0;   // matched collectives in this step
};

struct StragglerReport {
  std::vector<StragglerRank> ranks;    // in input order
  std::vector<int> stragglers;         // ranks flagged, in input order
  int64_t collectives_matched = 0;     // matched collectives (each counted once, not per rank)
  std::vector<StepStraggler> by_step;  // steps with a last arrival, by step number (needs event_steps)
};

StragglerReport FindStragglers(const std::vector<StragglerInput>& inputs);

}  // namespace paratune
