// Pipeline simulator: event-driven simulation of one training step of one pipeline replica.
// Each rank runs its Schedule's ops in order on one compute stream; an op starts when the rank
// is free and its input has arrived. A stage's output (forward) or input gradient (backward) is
// sent to the neighbouring stage on the sender's comm stream, one transfer at a time, and the
// receiver cannot use it before the transfer ends. After its backward passes a rank reduces its
// gradients over data parallelism on the comm stream, then runs the optimizer on the compute
// stream. docs/cost-model.md, "Pipeline simulation", describes the model.
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
  double p2p_s = 0;                   // one activation or gradient transfer between adjacent stages
  bool p2p_blocks_compute = false;    // true: the sender waits for its send (no PP comm overlap)
  std::vector<double> grad_reduce_s;  // per rank, all its chunks together; empty: none
  bool overlap_grad_reduce = true;    // a chunk's reduction starts when that chunk's gradients
                                      // are final; false: after the rank's last backward
  // With overlap_grad_reduce, Megatron-LM's bucketed reduction: buckets are reduced as the last
  // backward produces them, so a chunk's reduction may start when its last gradient op starts.
  bool reduce_during_last_backward = false;
  // ZeRO-2/3: the gradients are sharded, so each micro-batch's are reduce-scattered during its
  // own backward (DeepSpeed stage 1-2 `reduce_ipg_grads` per micro-step; PyTorch FSDP without
  // no_sync) and grad_reduce_s is paid once per micro-batch, queued with the gathers on the dp
  // stream; false: once per step, after each chunk's last backward (ZeRO-0/1).
  bool reduce_every_micro_batch = false;
  // Data-parallel collectives (reductions, parameter gathers) on their own stream, "dp", beside
  // the pipeline transfers; false: on the "comm" stream with them.
  bool dp_stream = false;
  // ZeRO parameter all-gathers, per rank, of all its chunks' parameters once; empty: none.
  // gathers_per_forward == 0: the updated parameters are gathered once, from the start of the
  // step, before each chunk's first forward (ZeRO-1/2; Megatron's distributed optimizer).
  // Otherwise ZeRO-3/FSDP: a chunk's parameters are gathered that many times before each of its
  // forwards and gathers_per_backward times before each backward.
  std::vector<double> param_gather_s;
  bool overlap_param_gather = true;  // gathers prefetched under compute; false: the rank waits
  int gathers_per_forward = 0;
  int gathers_per_backward = 0;
  std::vector<double> optimizer_s;  // per rank; empty: none
  // Link occupancy (docs/cost-model.md, "Link occupancy"). Per rank, the rate at which the
  // transfers on its comm and dp streams progress on their port while its passes run: 1 less
  // the share of the port the passes' own collectives (TP, CP, EP) hold. Outside its passes a
  // stream has the whole port. Pipeline transfers and parameter gathers run at the lowest rate
  // of the passes they may overlap; the gradient reductions at the rate of each pass they
  // overlap. Empty: 1 everywhere.
  struct StreamRates {
    double pp = 1;           // pipeline transfers
    double dp_forward = 1;   // DP collectives during a forward pass
    double dp_backward = 1;  // DP collectives during a backward or weight-gradient pass
  };
  std::vector<StreamRates> rates;
  // The pipeline transfers and the DP collectives hold the same port: the gradient reductions
  // fill the time the transfers leave free (the transfers, short and on the critical path, go
  // first). The gathers run beside them; the step composer bounds the step below by each
  // port's total work, which covers what they overlap.
  bool dp_shares_pp_port = false;
  bool record_timeline = true;  // false skips building the Timeline (figures still filled)
  bool breakdown = true;        // false skips the per-rank breakdowns and the critical path
                                // (step and pipeline time, in-flight peaks still filled)
};

struct StageFigures {
  GpuTimeBreakdown time;                  // compute, non-compute (exposed comm) and idle over the whole step
  double dp_non_compute_s = 0;            // the data-parallel collectives' part of time.non_compute_s
  int peak_inflight = 0;                  // most (micro-batch, virtual stage) activations held at once:
                                          // counted from a forward until its backward (B) frees them
  double peak_inflight_microbatches = 0;  // peak_inflight / vp: whole-rank micro-batch equivalents
  int peak_pending_weight_grads = 0;      // split schedules: most B done with W still to run
  int peak_held = 0;                      // most (micro-batch, virtual stage) held from F until W (split
                                          // schedules) or B at once: in flight plus pending W together
  double pipeline_end_s = 0;              // end of the rank's last F/B/W
  double last_event_end_s = 0;            // end of the rank's last event (its DP collectives and optimizer included)
  double reduce_tail_s = 0;               // the DP reduction still running after the rank's last pass
};

// The step's critical path: from the end of the rank whose step ends last back through what each
// op waited for (the previous op on its rank, or the transfer bringing its input), with the time
// by cause. compute + transfer + send_block + gather_wait + reduce_tail + optimizer + other
// is the step time.
struct CriticalPath {
  int end_rank = 0;
  double compute_s = 0;      // F, B and W passes on the path (any rank's)
  double transfer_s = 0;     // PP transfers the path waits for, queueing on the comm stream included
  double send_block_s = 0;   // blocking PP sends on the path (no PP overlap)
  double gather_wait_s = 0;  // ZeRO parameter gathers the path waits for
  double reduce_tail_s = 0;  // the end rank's DP reduction after its last pass
  double optimizer_s = 0;    // the end rank's optimizer
  double other_s = 0;        // anything else after the end rank's last pass
};

struct SimulationResult {
  double step_time_s = 0;      // last event end (optimizer included)
  double pipeline_time_s = 0;  // last F/B/W end over all ranks
  CriticalPath critical_path;
  std::vector<StageFigures> stages;  // one per rank
  Timeline timeline;                 // empty unless PipelineInput::record_timeline
};

// Throws InputError for inputs that do not match the schedule or negative times, and
// std::logic_error if the schedule deadlocks (a bug in the schedule, not in the input).
SimulationResult SimulatePipeline(const Schedule& schedule, const PipelineInput& input);

// Uniform input: every chunk the same, no communication, reduction or optimizer.
PipelineInput BalancedInput(int pp, int vp, double forward_s, double backward_s, double weight_s = 0);

}  // namespace paratune
