// Measured against predicted: a trace's step time, MFU and GPU-time breakdown beside the step
// composer's for the same model, cluster and layout. Both breakdowns come from the same code
// (timeline/breakdown.h BreakdownIntervals): the measured one over the trace's kernels, the
// predicted one over each simulated pipeline stage of the composed step.
#pragma once

#include <limits>
#include <string>

#include "analysis/trace_analysis.h"
#include "pipeline/simulator.h"
#include "step/estimate.h"
#include "timeline/breakdown.h"

namespace paratune {

struct PredictionComparison {
  bool measured_from_steps = false;  // false: no ProfilerStep, the whole GPU window is one step
  double measured_step_time_s = 0;   // mean over ranks of the mean kept iteration (ProfilerStep) time
  double predicted_step_time_s = 0;  // Estimate::step_time_s
  double measured_mfu = 0;           // Estimate::model_flops_per_step / (measured step * GPUs * peak)
  double predicted_mfu = 0;
  // The breakdowns in the one vocabulary (timeline/breakdown.h), each field the mean over ranks
  // (measured: HTA's temporal breakdown of each rank) or over pipeline stages (predicted: the
  // simulated step); their *_pct() are the shares the report shows.
  GpuTimeBreakdown measured;
  GpuTimeBreakdown predicted;
  double step_time_error = 0;  // predicted / measured - 1
  // A measured MFU above 1 is impossible: no GPU exceeds its peak, so the model, GPU count or
  // global batch given for the prediction do not match what the trace ran (the model FLOPs are
  // the estimate's). So is an MFU above the trace's compute share of GPU time (the FLOPs would
  // need more than the peak during the compute kernels). Then `mfu_warning` says so in one line,
  // with the likely cause; it also says when the traces' world size is not the prediction's.
  bool mfu_impossible = false;
  std::string mfu_warning;
  // Peak allocated GPU memory: measured = the largest peak over the ranks whose traces carry the
  // profiler's memory events with the allocator's totals (analysis/memory_timeline.h; NaN when
  // none do), what torch.cuda.max_memory_allocated() reads over the profiled window; predicted =
  // Estimate::peak_allocated_bytes, the cost model's figure for the same counter.
  double measured_peak_allocated_bytes = std::numeric_limits<double>::quiet_NaN();
  double predicted_peak_allocated_bytes = 0;
};

PredictionComparison ComparePrediction(const TraceAnalysis& a, const Estimate& e, const SimulationResult& sim);

}  // namespace paratune
