#include "compare/prediction.h"

#include <cmath>

#include <fmt/format.h>

#include <algorithm>

#include "timeline/breakdown.h"

namespace paratune {
namespace {

// Field by field: the mean breakdown of several GPUs.
void Add(GpuTimeBreakdown& to, const GpuTimeBreakdown& b) {
  to.window_s += b.window_s;
  to.compute_s += b.compute_s;
  to.non_compute_s += b.non_compute_s;
  to.idle_s += b.idle_s;
  to.comm_s += b.comm_s;
}

void Divide(GpuTimeBreakdown& b, double n) {
  b.window_s /= n;
  b.compute_s /= n;
  b.non_compute_s /= n;
  b.idle_s /= n;
  b.comm_s /= n;
}

// The measured side: the mean GPU time breakdown over the ranks, and the mean step time (from
// the ranks' profiler steps, else the mean GPU window).
void SetMeasuredFigures(const TraceAnalysis& a, PredictionComparison* c) {
  double step_sum = 0;
  int step_ranks = 0;
  for (const RankAnalysis& r : a.ranks) {
    if (r.step_time.count > 0) {
      step_sum += r.step_time.mean;
      ++step_ranks;
    }
    Add(c->measured, r.temporal);
  }
  const double n = a.ranks.empty() ? 1.0 : static_cast<double>(a.ranks.size());
  Divide(c->measured, n);
  if (step_ranks > 0) {
    c->measured_from_steps = true;
    c->measured_step_time_s = step_sum / step_ranks;
  } else {
    c->measured_step_time_s = c->measured.window_s;  // the mean GPU window
  }
}

// Marks a measured MFU the trace cannot have run at (above 100%, or above the peak during its
// compute kernels) and warns when the traces' world size is not the prediction's GPUs.
void WarnImpossibleMfu(const TraceAnalysis& a, const Estimate& e, PredictionComparison* c) {
  if (c->measured_mfu > 1) {
    c->mfu_impossible = true;
    // The traces' own world size, where they carry one, against the GPUs of the prediction.
    int world = 0;
    for (const RankAnalysis& r : a.ranks) world = std::max(world, r.world_size);
    const std::string hint =
        world > 0 && world != e.gpus
            ? fmt::format("; the traces come from a job of {} ranks, the prediction is for {} GPUs", world, e.gpus)
            : std::string();
    c->mfu_warning = fmt::format(
        "measured MFU {:.1f}% is impossible (above 100%): the model ({}), GPU count ({}) or global batch ({} sequences "
        "of {} "
        "tokens) given do not match what the trace ran{}; the measured MFU takes the prediction's FLOPs per step",
        100 * c->measured_mfu, e.model, e.gpus, e.training.global_batch, e.training.seq, hint);
  }
  // The model's FLOPs must run in the time the GPUs spend in compute kernels: MFU over the
  // compute share of GPU time is the share of peak those kernels would need. Above 100% the
  // model, GPUs or batch given cannot be what the trace ran, even when the MFU itself looks
  // possible (issue 32: 65.7% MFU on a trace with 20% compute, a recommender model's).
  const double compute_share = c->measured.window_s > 0 ? c->measured.compute_s / c->measured.window_s : 0;
  if (!c->mfu_impossible && compute_share > 0 && c->measured_mfu / compute_share > 1) {
    c->mfu_impossible = true;
    c->mfu_warning = fmt::format(
        "measured MFU {:.1f}% would need {:.0f}% of the peak during the {:.1f}% of GPU time the trace spends in "
        "compute "
        "kernels: the model ({}), GPU count ({}) or global batch ({} sequences of {} tokens) given do not match what "
        "the "
        "trace ran",
        100 * c->measured_mfu, 100 * c->measured_mfu / compute_share, 100 * compute_share, e.model, e.gpus,
        e.training.global_batch, e.training.seq);
  }
  // The traces' world size, where they carry one, against the GPUs of the prediction.
  int traced_world = 0;
  for (const RankAnalysis& r : a.ranks) traced_world = std::max(traced_world, r.world_size);
  if (c->mfu_warning.empty() && traced_world > 0 && traced_world != e.gpus)
    c->mfu_warning = fmt::format(
        "the traces come from a job of {} ranks, the prediction is for {} GPUs: the measured MFU "
        "takes the prediction's FLOPs per step",
        traced_world, e.gpus);
}

}  // namespace

PredictionComparison ComparePrediction(const TraceAnalysis& a, const Estimate& e, const SimulationResult& sim) {
  PredictionComparison c;
  SetMeasuredFigures(a, &c);
  c.predicted_step_time_s = e.step_time_s;
  c.predicted_mfu = e.mfu;
  // MFU scales inversely with step time for the same model FLOPs, GPUs and peak
  // (Chowdhery et al. 2022, PaLM, Appendix B: MFU = model FLOPs per second / peak FLOPs).
  if (c.measured_step_time_s > 0) c.measured_mfu = e.mfu * e.step_time_s / c.measured_step_time_s;
  if (c.measured_step_time_s > 0) c.step_time_error = c.predicted_step_time_s / c.measured_step_time_s - 1;
  WarnImpossibleMfu(a, e, &c);
  c.predicted_peak_allocated_bytes = e.peak_allocated_bytes;
  for (const RankAnalysis& r : a.ranks)
    if (r.memory && r.memory->absolute)
      c.measured_peak_allocated_bytes =
          std::isnan(c.measured_peak_allocated_bytes)
              ? static_cast<double>(r.memory->peak.allocated_bytes)
              : std::max(c.measured_peak_allocated_bytes, static_cast<double>(r.memory->peak.allocated_bytes));
  // The simulated stages' breakdowns (timeline/breakdown.h), each over the whole step.
  if (!sim.stages.empty()) {
    for (const StageFigures& st : sim.stages) Add(c.predicted, st.time);
    Divide(c.predicted, static_cast<double>(sim.stages.size()));
  }
  return c;
}

}  // namespace paratune
