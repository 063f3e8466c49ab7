// Periodicity by the sample autocorrelation function (Box, Jenkins & Reinsel, "Time Series
// Analysis", 4th ed., chapter 2, the estimated autocorrelation function: r_k = c_k / c_0 with
// c_k = 1/n sum (x_t - m)(x_{t+k} - m)).
// Here each c_k is divided by the n - k products it sums instead of n, so that an exactly
// periodic signal has r = 1 at every multiple of its period (the 1/n estimator shrinks the
// peak at lag k by (n - k)/n, which would make the min_autocorrelation test depend on the
// length of the capture). See docs/diagnose-telemetry.md.
#include "analysis/periodicity.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "util/stats.h"

namespace paratune {
namespace {

// A period's multiples 2P, 3P, ... peak as high as P itself for an exactly periodic signal, and
// with noise, or with a period that falls between two lags (12.5 samples: the ACF peaks at 25 at
// full height but only partly at 12 and 13), a multiple can be the highest peak. The period is
// therefore the smallest divisor K/m of the highest peak K (within a lag of it) where the ACF
// also peaks at min_autocorrelation or more: the repetition the multiples are made of.
constexpr size_t kDivisorSlack = 1;  // lags either side of K/m searched for the divisor's peak

// The autocorrelation r[0..kmax] of x, each c_k divided by the n - k products it sums; empty when
// x does not vary (c_0 = 0).
std::vector<double> Autocorrelation(std::span<const double> x, size_t kmax) {
  const size_t n = x.size();
  double mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(n);
  std::vector<double> d(n);
  double c0 = 0;
  for (size_t i = 0; i < n; ++i) {
    d[i] = x[i] - mean;
    c0 += d[i] * d[i];
  }
  c0 /= static_cast<double>(n);
  if (c0 <= 0) return {};
  std::vector<double> r(kmax + 1, 0.0);
  r[0] = 1;
  for (size_t k = 1; k <= kmax; ++k) {
    double c = 0;
    for (size_t i = 0; i + k < n; ++i) c += d[i] * d[i + k];
    r[k] = std::min(1.0, c / static_cast<double>(n - k) / c0);
  }
  return r;
}

}  // namespace

Periodicity FindPeriodicity(std::span<const double> x, size_t min_period, size_t max_period, double min_autocorrelation,
                            double min_swing) {
  Periodicity p;
  const size_t n = x.size();
  for (double v : x)
    if (!std::isfinite(v)) return p;
  min_period = std::max<size_t>(min_period, 2);  // a period of one sample is a constant
  max_period = std::min(max_period, n / 3);      // at least three periods to see a repetition
  if (n < 6 || max_period < min_period) return p;

  std::vector<double> sorted(x.begin(), x.end());
  std::sort(sorted.begin(), sorted.end());
  p.low_level = SortedQuantile(sorted, 0.1);
  p.high_level = SortedQuantile(sorted, 0.9);
  const double mid = (p.low_level + p.high_level) / 2;
  size_t high = 0;
  for (double v : x) high += v > mid;
  p.duty_cycle = static_cast<double>(high) / static_cast<double>(n);
  if (p.high_level - p.low_level < min_swing) return p;

  // r[k] for k = 0..max_period + 1 (one beyond, to see whether max_period is a peak).
  const size_t kmax = std::min(max_period + 1, n - 1);
  const std::vector<double> r = Autocorrelation(x, kmax);
  if (r.empty()) return p;
  // A period shows as the ACF falling below zero (the signal out of phase with itself) and
  // rising again; lags before the first negative value are the main lobe around lag 0.
  size_t first_negative = 0;
  for (size_t k = 1; k <= kmax; ++k) {
    if (r[k] < 0) {
      first_negative = k;
      break;
    }
  }
  if (first_negative == 0) return p;
  const size_t from = std::max(min_period, first_negative);
  if (from > max_period) return p;
  const auto is_peak = [&](size_t k) { return r[k] >= r[k - 1] && (k + 1 > kmax || r[k] >= r[k + 1]); };
  double best = -1;
  size_t best_k = 0;
  for (size_t k = from; k <= max_period; ++k)
    if (is_peak(k) && r[k] > best) best = r[k], best_k = k;
  if (best < min_autocorrelation) return p;
  size_t period = best_k;
  for (size_t m = 2; best_k / m + kDivisorSlack >= from && best_k / m > 0; ++m) {
    const size_t lo = std::max(from, best_k / m > kDivisorSlack ? best_k / m - kDivisorSlack : size_t{1});
    const size_t hi = std::min(max_period, (best_k + m - 1) / m + kDivisorSlack);
    size_t at = 0;
    for (size_t k = lo; k <= hi; ++k)
      if (is_peak(k) && r[k] >= min_autocorrelation && (at == 0 || r[k] > r[at])) at = k;
    if (at != 0) period = std::min(period, at);
  }
  p.found = true;
  p.period_samples = period;
  p.autocorrelation = r[period];
  return p;
}

}  // namespace paratune
