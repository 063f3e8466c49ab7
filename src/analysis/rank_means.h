// Figures of a whole trace set as the mean over its ranks, for the readers that show one number
// per run (the run registry, the report): the per-step time split by what it went to, and each
// collective kind's bus bandwidth beside its link ceiling.
#pragma once

#include <map>
#include <string>

#include "analysis/trace_analysis.h"

namespace paratune {

// The mean over the ranks with ProfilerStep iterations of each rank's per-step figure:
//   step_s            step_time.mean (the kept iterations)
//   compute_s         temporal.compute_pct() / 100 x the rank's step (HTA's temporal breakdown)
//   exposed comm      each collective's exposed_s / the rank's iterations, by the parallelism it
//                     serves: send/recv kernels are pipeline-parallel (Megatron-LM's
//                     p2p_communication.py), all-to-all expert-parallel (token dispatch); the
//                     other collectives' groups (TP, DP or CP) are not in the trace: other_comm_s
//   dataloader_share  dataloader_share
struct StepMeans {
  int ranks = 0;  // ranks with iterations; 0: no per-step figure
  double step_s = 0;
  double compute_s = 0;
  double pp_comm_s = 0;
  double ep_comm_s = 0;
  double other_comm_s = 0;
  double dataloader_share = 0;
  double exposed_comm_s() const { return pp_comm_s + ep_comm_s + other_comm_s; }
};
StepMeans MeanStepFigures(const TraceAnalysis& a);

// Per collective kind with sized calls: the mean over the ranks that have a bus bandwidth, and the
// mean over the ranks with a link ceiling of that ceiling (has_ceiling false where none has one).
struct BusBandwidthMean {
  double busbw_bytes_per_s = 0;
  double ceiling_bytes_per_s = 0;
  bool has_ceiling = false;
};
std::map<std::string, BusBandwidthMean> MeanBusBandwidthByKind(const TraceAnalysis& a);

}  // namespace paratune
