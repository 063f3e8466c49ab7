// Periodicity: whether a sampled signal (GPU utilisation, per-iteration time) repeats with a
// fixed period, as a data-loader-starved run's saw-tooth utilisation does, found by the
// autocorrelation function: its highest peak after the ACF first turns negative, brought back to
// the smallest divisor where the ACF also peaks (multiples of a period peak as high as the
// period); and the duty cycle, the share of each period the signal spends in its high state.
// Method and tests: periodicity.cc, docs/diagnose-telemetry.md.
#pragma once

#include <cstddef>
#include <span>

namespace paratune {

struct Periodicity {
  bool found = false;
  size_t period_samples = 0;
  double autocorrelation = 0;            // ACF at the period (0..1)
  double duty_cycle = 0;                 // share of samples above the midpoint between the low and high levels
  double low_level = 0, high_level = 0;  // 10th and 90th percentiles
};

// Searches lags in [min_period, max_period] (max_period clipped to n/3); found when the ACF peak
// there is >= min_autocorrelation and the signal's high-low spread is at least min_swing (in the
// signal's own units, e.g. 0.3 for a utilisation fraction).
Periodicity FindPeriodicity(std::span<const double> x, size_t min_period, size_t max_period,
                            double min_autocorrelation = 0.5, double min_swing = 0.3);

}  // namespace paratune
