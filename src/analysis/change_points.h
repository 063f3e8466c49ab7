// Change points and drift in a measured series (throughput per iteration, step time): where the
// level of the series steps, found by PELT (Killick, Fearnhead & Eckley, "Optimal detection of
// changepoints with a linear computational cost", JASA 2012) on a Gaussian change-in-mean cost
// with the noise scale estimated robustly, under a stated penalty; and slow linear drift, tested
// separately on what is left once the steps are removed.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace paratune {

struct ChangePointOptions {
  // Penalty per change point in units of the noise variance: MBIC (Zhang & Siegmund 2007),
  // 3 ln n, as the R changepoint package's default; a larger value finds fewer changes.
  double penalty_log_factor = 3.0;
  size_t min_segment = 5;          // samples in the shortest segment
  // Steps smaller than this fraction of the series level are not reported (sub-percent wander).
  double min_relative_step = 0.01;
};

struct ChangePoint {
  size_t index = 0;          // first sample of the new segment
  double mean_before = 0;    // mean of the segment before it
  double mean_after = 0;     // mean of the segment from it
  double relative_step = 0;  // (mean_after - mean_before) / mean_before
};

struct Drift {
  bool found = false;
  double slope_per_sample = 0;      // least-squares slope of the step-free residual plus level
  double relative_change = 0;       // slope * (n - 1) / mean: the drift over the whole series
  double t_statistic = 0;           // slope / its standard error (AR(1)-corrected)
};

// The noise scale: the median absolute deviation of first differences / (0.6745 * sqrt 2), which
// ignores level steps (a step moves one difference only).
double RobustNoiseSigma(std::span<const double> x);

std::vector<ChangePoint> DetectChangePoints(std::span<const double> x, const ChangePointOptions& options = {});

// Linear drift over x after removing the `changes` (each segment centred on its own mean).
// Found when |t| > 4 and |relative_change| >= min_relative_change.
Drift DetectDrift(std::span<const double> x, const std::vector<ChangePoint>& changes,
                  double min_relative_change = 0.02);

}  // namespace paratune
