#include "compare/prediction.h"


namespace paratune {

PredictionComparison ComparePrediction(const TraceAnalysis& a, const Estimate& e, const SimulationResult& sim) {
  PredictionComparison c;
  double step_sum = 0;
  int step_ranks = 0;
  for (const RankAnalysis& r : a.ranks) {
    if (r.step_time.count > 0) {
      step_sum += r.step_time.mean;
      ++step_ranks;
    }
    c.measured.compute_pct += r.temporal.compute_pct();
    c.measured.non_compute_pct += r.temporal.non_compute_pct();
    c.measured.idle_pct += r.temporal.idle_pct();
  }
  const double n = a.ranks.empty() ? 1.0 : static_cast<double>(a.ranks.size());
  c.measured.compute_pct /= n;
  c.measured.non_compute_pct /= n;
  c.measured.idle_pct /= n;
  if (step_ranks > 0) {
    c.measured_from_steps = true;
    c.measured_step_time_s = step_sum / step_ranks;
  } else {
    double window = 0;
    for (const RankAnalysis& r : a.ranks) window += r.temporal.window_s;
    c.measured_step_time_s = window / n;
  }
  c.predicted_step_time_s = e.step_time_s;
  c.predicted_mfu = e.mfu;
  // MFU scales inversely with step time for the same model FLOPs, GPUs and peak
  // (Chowdhery et al. 2022, PaLM, Appendix B: MFU = model FLOPs per second / peak FLOPs).
  if (c.measured_step_time_s > 0) c.measured_mfu = e.mfu * e.step_time_s / c.measured_step_time_s;
  if (c.measured_step_time_s > 0) c.step_time_error = c.predicted_step_time_s / c.measured_step_time_s - 1;
  // The simulated stages' breakdowns (timeline/breakdown.h), each over the whole step.
  if (!sim.stages.empty()) {
    for (const StageFigures& st : sim.stages) {
      c.predicted.compute_pct += st.time.compute_pct();
      c.predicted.non_compute_pct += st.time.non_compute_pct();
      c.predicted.idle_pct += st.time.idle_pct();
    }
    const double k = static_cast<double>(sim.stages.size());
    c.predicted.compute_pct /= k;
    c.predicted.non_compute_pct /= k;
    c.predicted.idle_pct /= k;
  }
  return c;
}

}  // namespace paratune
