#include "step/estimate_simulation.h"

namespace paratune {

ScheduleKind DefaultSchedule(const Layout& l) { return l.vp > 1 ? ScheduleKind::kInterleaved : ScheduleKind::k1F1B; }

SimulationResult SimulateEstimate(const Estimate& e, ScheduleKind kind, bool record_timeline) {
  const Layout& l = e.layout;
  PipelineInput in;
  in.record_timeline = record_timeline;
  in.p2p_s = e.p2p_time_s;
  in.p2p_blocks_compute = !l.overlap_pp_comm;
  in.overlap_grad_reduce = l.overlap_grad_reduce;
  for (const StageEstimate& st : e.stages) {
    // Each rank's time split evenly over its vp virtual stages.
    for (int c = 0; c < l.vp; ++c) in.chunks.push_back({st.forward_s / l.vp, st.backward_s / l.vp, st.weight_grad_s / l.vp});
    in.grad_reduce_s.push_back(st.grad_reduce_s);
    in.optimizer_s.push_back(st.optimizer_s);
  }
  return SimulatePipeline(BuildSchedule(kind, l.pp, l.vp, e.micro_batches), in);
}

}  // namespace paratune
