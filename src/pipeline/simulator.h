// Pipeline simulator: event-driven simulation of one training step of one pipeline replica.
// Each rank runs its Schedule's ops in order on one compute stream; an op starts when the rank
// is free and its input has arrived. A stage's output (forward) or input gradient (backward) is
// sent to the neighbouring stage on the sender's comm stream, one transfer at a time, and the
// receiver cannot use it before the transfer ends. After its backward passes a rank reduces its
// gradients over data parallelism on the comm stream, then runs the optimizer on the compute
// stream. docs/simulator.md describes the model.
#pragma once

#include <vector>

#include "pipeline/schedule.h"
#include "timeline/breakdown.h"
#include "timeline/timeline.h"

namespace paratune {

// Times of one micro-batch through one virtual stage (one chunk on one rank).
struct ChunkTimes {
  double forward_s = 0;
  double backward_s = 0;  // the whole backward: input gradient plus weight gradient
  double weight_s = 0;    // the weight-gradient part of backward_s, run as W by split schedules
};

struct PipelineInput {
  // Index rank * vp + virtual_stage; pp * vp entries.
  std::vector<ChunkTimes> chunks;
  double p2p_s = 0;                 // one activation or gradient transfer between adjacent stages
  bool p2p_blocks_compute = false;  // true: the sender waits for its send (no PP comm overlap)
  std::vector<double> grad_reduce_s;  // per rank, all its chunks together; empty: none
  bool overlap_grad_reduce = true;    // a chunk's reduction starts when that chunk's gradients
                                      // are final; false: after the rank's last backward
  std::vector<double> optimizer_s;    // per rank; empty: none
  bool record_timeline = true;        // false skips building the Timeline (figures still filled)
};

struct StageFigures {
  GpuTimeBreakdown time;            // compute, non-compute (exposed comm) and idle over the whole step
  int peak_inflight = 0;            // most (micro-batch, virtual stage) activations held at once:
                                    // counted from a forward until its backward (B) frees them
  double peak_inflight_microbatches = 0;  // peak_inflight / vp: whole-rank micro-batch equivalents
  int peak_pending_weight_grads = 0;  // split schedules: most B done with W still to run
  double pipeline_end_s = 0;          // end of the rank's last F/B/W
};

struct SimulationResult {
  double step_time_s = 0;      // last event end (optimizer included)
  double pipeline_time_s = 0;  // last F/B/W end over all ranks
  std::vector<StageFigures> stages;  // one per rank
  Timeline timeline;           // empty unless PipelineInput::record_timeline
};

// Throws InputError for inputs that do not match the schedule or negative times, and
// std::logic_error if the schedule deadlocks (a bug in the schedule, not in the input).
SimulationResult SimulatePipeline(const Schedule& schedule, const PipelineInput& input);

// Uniform input: every chunk the same, no communication, reduction or optimizer.
PipelineInput BalancedInput(int pp, int vp, double forward_s, double backward_s, double weight_s = 0);

}  // namespace paratune
