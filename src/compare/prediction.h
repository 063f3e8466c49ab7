// Measured against predicted: a trace's step time, MFU and GPU-time breakdown beside the cost
// model's for the same model, cluster and layout. Both breakdowns come from the same code
// (timeline/breakdown.h BreakdownIntervals): the measured one over the trace's kernels, the predicted
// one over the pipeline simulator's timeline of the estimated step.
#pragma once

#include <string>

#include "step/estimate.h"
#include "pipeline/simulator.h"
#include "analysis/trace_analysis.h"

namespace paratune {

struct GpuTimeShares {
  double compute_pct = 0;      // GPU computing
  double non_compute_pct = 0;  // communication or memory traffic with nothing computing
  double idle_pct = 0;         // nothing running (pipeline bubble, host or data-loader waits)
};

struct PredictionComparison {
  bool measured_from_steps = false;  // false: no ProfilerStep, the whole GPU window is one step
  double measured_step_time_s = 0;   // mean over ranks of the mean kept iteration (ProfilerStep) time
  double predicted_step_time_s = 0;  // Estimate::step_time_s
  double measured_mfu = 0;           // Estimate::model_flops_per_step / (measured step * GPUs * peak)
  double predicted_mfu = 0;
  GpuTimeShares measured;            // mean over ranks of HTA's temporal breakdown
  GpuTimeShares predicted;           // mean over pipeline stages of the simulated breakdown
  double step_time_error = 0;        // predicted / measured - 1
  // A measured MFU above 1 is impossible: no GPU exceeds its peak, so the model, GPU count or
  // global batch given for the prediction do not match what the trace ran (the model FLOPs are
  // the estimate's). Then `mfu_warning` says so in one line, with the likely cause.
  bool mfu_impossible = false;
  std::string mfu_warning;
};

PredictionComparison ComparePrediction(const TraceAnalysis& a, const Estimate& e, const SimulationResult& sim);

}  // namespace paratune
