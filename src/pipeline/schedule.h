// Schedule: the order in which each pipeline rank runs the forward (F), backward (B) and, for
// zero-bubble schedules, weight-gradient (W) passes of every micro-batch and virtual stage of
// one training step. The simulator (simulator.h) turns an order plus pass times into a timeline.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "layout/layout.h"

namespace paratune {

// ScheduleKind, its names and its parser live with the layout (layout/layout.h).

enum class OpKind : uint8_t {
  kForward,
  kBackward,    // whole backward, or its input-gradient half when the schedule splits W out
  kWeightGrad,  // weight-gradient half (split schedules only)
};

struct PipelineOp {
  OpKind kind = OpKind::kForward;
  int32_t virtual_stage = 0;  // chunk on this rank; global stage = virtual_stage * pp + rank
  int32_t micro_batch = 0;
};

struct Schedule {
  ScheduleKind kind = ScheduleKind::k1F1B;
  int pp = 1;
  int vp = 1;
  int64_t m = 1;                   // micro-batches per step
  bool split_backward = false;     // true: every backward is a B then a later W
  std::vector<PipelineOp> ops;     // every rank's ops, rank after rank
  std::vector<size_t> rank_begin;  // pp + 1 offsets into ops

  std::span<const PipelineOp> RankOps(int rank) const {
    return {ops.data() + rank_begin[static_cast<size_t>(rank)],
            rank_begin[static_cast<size_t>(rank) + 1] - rank_begin[static_cast<size_t>(rank)]};
  }
};

// Builds the per-rank order. Rules (InputError otherwise): pp >= 1, m >= 1; vp > 1 only with
// the interleaved schedule, which needs vp >= 2 and m a multiple of pp (Megatron-LM processes
// micro-batches in groups of pp per virtual stage; with a ragged last group this order can
// deadlock, e.g. pp 4, vp 3, m 5).
Schedule BuildSchedule(ScheduleKind kind, int pp, int vp, int64_t m);

}  // namespace paratune
