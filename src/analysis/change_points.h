// Change points and drift in a measured series (throughput per iteration, step time): where the
// level of the series steps, found as the optimal partition under a Gaussian change-in-mean cost
// and a stated penalty (the objective of PELT: Killick, Fearnhead & Eckley, "Optimal detection of
// changepoints with a linear computational cost", JASA 2012), with the noise scale and its lag-1
// autocorrelation estimated robustly; and slow linear drift, tested separately on what is left
// once the steps are removed. The method, its penalty and its measured accuracy are in
// docs/diagnose-series.md.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace paratune {

struct ChangePointOptions {
  // Penalty per change point in units of the noise variance (the long-run variance of an AR(1)
  // noise, below): penalty_log_factor * ln n. 3 ln n is the MBIC penalty (Zhang & Siegmund,
  // Biometrics 2007) as the R changepoint package sets it by default for a change in mean
  // (R/penalty_decision.R: (diffparam + 2) * log(n), diffparam = 1); a larger value finds fewer.
  double penalty_log_factor = 3.0;
  size_t min_segment = 5;  // samples in the shortest segment
  // Steps smaller than this fraction of the series level are not reported (sub-percent wander).
  double min_relative_step = 0.01;
  // Replace each sample by the median of itself and its two neighbours before segmenting (an
  // isolated one-sample outlier then vanishes; a step edge is kept where it is). The noise is
  // still estimated on the series as given.
  bool median3_prefilter = true;
};

struct ChangePoint {
  size_t index = 0;          // first sample of the new segment
  double mean_before = 0;    // mean of the segment before it
  double mean_after = 0;     // mean of the segment from it
  double relative_step = 0;  // (mean_after - mean_before) / mean_before
};

struct Drift {
  bool found = false;
  double slope_per_sample = 0;  // least-squares slope pooled within the step-free segments
  double relative_change = 0;   // slope * (n - 1) / mean: the drift over the whole series
  double t_statistic = 0;       // slope / its standard error (AR(1)-corrected)
};

// The noise of a series under an AR(1) model, x_i = level_i + e_i, e_i = rho e_{i-1} + w_i,
// estimated from the first and second differences so that level steps do not bias it (a step
// moves one or two differences only): with s1, s2 the scales of the lag-1 and lag-2 differences
// (median |d| / 0.6745), Var d1 = 2 sigma^2 (1 - rho), Var d2 = 2 sigma^2 (1 - rho^2), so
// rho = (s2 / s1)^2 - 1 (the robust estimator of Chakar, Lebarbier, Levy-Leduc & Robin, "A robust
// approach for estimating change-points in the mean of an AR(1) process", Bernoulli 2017) and
// sigma^2 = s1^2 / (2 (1 - rho)).
struct NoiseEstimate {
  double sigma = 0;           // marginal standard deviation of e
  double rho = 0;             // lag-1 autocorrelation, clamped to [0, kMaxNoiseRho]
  double long_run_sigma = 0;  // sigma * sqrt((1 + rho) / (1 - rho)): the scale of a long mean
};
inline constexpr double kMaxNoiseRho = 0.95;
NoiseEstimate EstimateNoise(std::span<const double> x);

// The noise scale: the median absolute deviation of first differences / (0.6745 * sqrt 2), which
// ignores level steps (a step moves one difference only). For white noise this is sigma; for
// AR(1) noise it is sigma * sqrt(1 - rho) (EstimateNoise corrects it).
double RobustNoiseSigma(std::span<const double> x);

std::vector<ChangePoint> DetectChangePoints(std::span<const double> x, const ChangePointOptions& options = {});

// Linear drift over x after removing the `changes`: the least-squares slope pooled over the
// segments, each centred on its own mean (sample index and value), its standard error inflated
// by sqrt((1 + rho) / (1 - rho)) for the residual's lag-1 autocorrelation rho (the effective
// sample size n (1 - rho) / (1 + rho) of Santer et al., J. Geophys. Res. 105(D6), 2000, sec. 3).
// Found when |t| > kDriftMinT and |relative_change| >= min_relative_change.
inline constexpr double kDriftMinT = 4.0;
Drift DetectDrift(std::span<const double> x, const std::vector<ChangePoint>& changes,
                  double min_relative_change = 0.02);

// Steps and drift together: a slow drift is otherwise cut into a staircase of small steps. Two
// models are compared by their penalised cost (residual sum of squares / long-run variance +
// penalty per change, one more penalty for the slope): steps only, and steps plus one linear
// trend (the steps found again on the detrended series, the slope refitted within them). The
// cheaper one is kept; `drift` is then DetectDrift over its steps.
struct SeriesAnalysis {
  NoiseEstimate noise;
  std::vector<ChangePoint> changes;
  Drift drift;
  bool trend_model = false;  // the steps-plus-trend model was the cheaper one
};
SeriesAnalysis AnalyzeSeries(std::span<const double> x, const ChangePointOptions& options = {},
                             double min_relative_drift = 0.02);

}  // namespace paratune
