// DiagnosisSeries: what the report draws beside the findings: each training log's throughput
// over iterations with its checkpoint saves, and each GPU's SM clock and temperature over time
// from the telemetry, thinned to at most kMaxSeriesPoints points per series (evenly, by index).
#pragma once

#include <string>
#include <vector>

#include "diagnose/inputs.h"

namespace paratune {

inline constexpr size_t kMaxSeriesPoints = 2000;
inline constexpr int kMaxTelemetrySeries = 64;  // GPUs per telemetry file drawn

struct ThroughputSeries {
  std::string path;
  // What `values` holds: "tokens_per_s_per_gpu", "tflops_per_gpu" or "iterations_per_s" (from
  // the elapsed time per iteration), the first the log gives.
  std::string quantity;
  std::vector<double> iterations;  // the log's iteration numbers (line order for a CSV)
  std::vector<double> values;
  std::vector<double> save_iterations;  // checkpoint saves
};

struct TelemetrySeries {
  std::string path;
  int gpu = 0;
  std::vector<double> time_s;                      // seconds since the epoch
  std::vector<double> sm_clock_hz, temperature_c;  // NaN where not sampled
};

struct DiagnosisSeries {
  std::vector<ThroughputSeries> throughput;
  std::vector<TelemetrySeries> telemetry;
};

DiagnosisSeries SeriesOf(const DiagnoseInputs& inputs);

}  // namespace paratune
