// Timeline: what ran where and when during one training step, as events per rank (a pipeline
// stage, shown as a process) and stream (a thread such as "compute" or "comm"). The pipeline
// simulator writes one. Measured traces keep their own compact form (trace/trace_event.h) but go
// through the same BreakdownIntervals (breakdown.h), so prediction and measurement share one breakdown.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/enum_names.h"

namespace paratune {

// What an event does. kBackward is the whole backward pass, or only its input-gradient half
// when the schedule splits the weight gradient out as kWeightGrad (zero-bubble schedules).
enum class Phase : uint8_t {
  kForward,
  kBackward,
  kWeightGrad,
  kSend,
  kRecv,
  kAllReduce,  // a data-parallel gradient reduction (all-reduce or reduce-scatter)
  kAllGather,  // a ZeRO parameter all-gather
  kOptimizer,
  kOther,
};

inline constexpr EnumNames<Phase, 9> kPhaseNames{{{{Phase::kForward, "F"},
                                                   {Phase::kBackward, "B"},
                                                   {Phase::kWeightGrad, "W"},
                                                   {Phase::kSend, "send"},
                                                   {Phase::kRecv, "recv"},
                                                   {Phase::kAllReduce, "all-reduce"},
                                                   {Phase::kAllGather, "all-gather"},
                                                   {Phase::kOptimizer, "optimizer"},
                                                   {Phase::kOther, "other"}}},
                                                 9};
inline const char* PhaseName(Phase p) { return kPhaseNames.Name(p); }
// Compute phases occupy the GPU's compute units (F, B, W, optimizer, other); the rest move data.
bool IsComputePhase(Phase p);

struct TimelineEvent {
  int rank = 0;    // pipeline rank (stage); Chrome-trace pid
  int stream = 0;  // index into Timeline::stream_names; Chrome-trace tid
  Phase phase = Phase::kOther;
  int32_t micro_batch = -1;    // -1: not tied to one micro-batch
  int32_t virtual_stage = -1;  // chunk index on the rank (interleaving); -1: none
  double start_s = 0;
  double duration_s = 0;
  std::string name;  // empty: PhaseName(phase)
  double end_s() const { return start_s + duration_s; }
};

struct Timeline {
  static constexpr int kComputeStream = 0;
  static constexpr int kCommStream = 1;
  int ranks = 0;  // ranks 0..ranks-1, named "stage N"
  std::vector<std::string> stream_names = {"compute", "comm"};
  std::vector<TimelineEvent> events;
};

}  // namespace paratune
