// Change points (analysis/change_points.h). The optimal partition is PELT's objective (Killick,
// Fearnhead & Eckley 2012, eq. 2-3): F(t) = min over s of F(s) + C(s, t) + beta, C the Gaussian
// change-in-mean cost sum (z_i - mean)^2 of the standardised series. PELT's inequality pruning
// (their Theorem 3.1) removes nothing on a series with no change (every split lowers C), which
// makes it O(n^2) exactly where most logs are; the candidates are therefore pruned functionally
// (FPOP: Maidstone, Hocking, Rigaill & Fearnhead, "On optimal multiple changepoint algorithms for
// large data", Statistics and Computing 2017, sec. 3), which keeps every candidate PELT keeps
// pruned no later and finds the same optimum: each candidate s keeps the set of segment means mu
// for which F(s) + beta + sum_{i>=s} (z_i - mu)^2 is the smallest; a candidate whose set is empty
// can never be optimal again. With the minimum segment length m a candidate s enters at t = s + m.
#include "analysis/change_points.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace paratune {
namespace {

// Scale of a Gaussian from the median absolute value of a zero-mean sample: median |N(0,1)| =
// 0.6745 (the MAD consistency constant, Hampel 1974).
constexpr double kMadToSigma = 1.0 / 0.6744897501960817;
// A series whose differences are mostly exactly zero (printed values quantised coarser than the
// noise) has no measurable noise; its scale is floored at this share of its level, ten times
// below the smallest step reported (ChangePointOptions::min_relative_step's default).
constexpr double kSigmaFloorRelative = 1e-3;

double MedianAbsInPlace(std::vector<double>& v) {
  if (v.empty()) return 0;
  for (double& d : v) d = std::fabs(d);
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) m = (m + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
  return m;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) m = (m + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
  return m;
}

// The scale of the lag-`lag` differences: the root mean square of the differences winsorised at
// kWinsorK times their MAD scale (so the one or two differences a level step or an outlier moves
// count no more than a 3-sigma value), divided by its consistency factor for a Gaussian. The
// MAD alone is too noisy for rho (efficiency 37%: its rho has a standard deviation of ~0.18 on
// 500 samples of AR(1) rho 0.8, and (1 + rho) / (1 - rho) follows every error); the winsorised
// mean square is nearly as efficient as the plain one.
constexpr double kWinsorK = 3.0;
// E[min(X^2, k^2)] for X ~ N(0, 1), k = 3: 1 - 2 (k phi(k) + Q(k)) + 2 k^2 Q(k) = 0.99501.
constexpr double kWinsorConsistency = 0.995010;
double LagScale(std::span<const double> x, size_t lag, bool winsorised = true) {
  if (x.size() <= lag) return 0;
  std::vector<double> d(x.size() - lag);
  for (size_t i = lag; i < x.size(); ++i) d[i - lag] = x[i] - x[i - lag];
  std::vector<double> copy(d);
  const double mad = MedianAbsInPlace(copy) * kMadToSigma;
  if (!winsorised || mad <= 0) return mad;
  const double clip = kWinsorK * mad;
  double ss = 0;
  for (double v : d) ss += std::min(v * v, clip * clip);
  return std::sqrt(ss / static_cast<double>(d.size()) / kWinsorConsistency);
}

std::vector<double> Median3(std::span<const double> x) {
  std::vector<double> y(x.begin(), x.end());
  for (size_t i = 1; i + 1 < x.size(); ++i) {
    const double a = x[i - 1], b = x[i], c = x[i + 1];
    y[i] = std::max(std::min(a, b), std::min(std::max(a, b), c));
  }
  return y;
}

// A candidate of the functional pruning: the segment means it owns.
struct Piece {
  double a, b;  // the means [a, b] this candidate owns
  size_t s;     // the candidate: the last change before t is at s
};

// Candidate c enters: it takes from each piece the means where its cost q_c is below the
// owner's (s1, s2: the prefix sums of z and z^2; f: F). `next` is a buffer.
void AddCandidate(size_t c, const std::vector<double>& s1, const std::vector<double>& s2, const std::vector<double>& f,
                  std::vector<Piece>& pieces, std::vector<Piece>& next) {
  // q_c - q_o = A mu^2 + B mu + C, the same at every t (both see the same samples from c on):
  // A = o - c < 0, B = 2 (S1[c] - S1[o]), C = F[c] - F[o] + S2[o] - S2[c]. The newcomer wins
  // where it is negative: outside the roots, or everywhere when there are none.
  next.clear();
  auto emit = [&](double a, double b, size_t s) {
    if (!(b > a)) return;
    if (!next.empty() && next.back().s == s) {
      next.back().b = b;
    } else {
      next.push_back({a, b, s});
    }
  };
  for (const Piece& p : pieces) {
    const double A = static_cast<double>(p.s) - static_cast<double>(c);
    const double B = 2 * (s1[c] - s1[p.s]);
    const double C = f[c] - f[p.s] + s2[p.s] - s2[c];
    const double disc = B * B - 4 * A * C;
    if (disc <= 0) {
      emit(p.a, p.b, c);
      continue;
    }
    const double sq = std::sqrt(disc);
    const double r1 = (-B + sq) / (2 * A), r2 = (-B - sq) / (2 * A);  // r1 < r2 since A < 0
    const double x1 = std::clamp(r1, p.a, p.b), x2 = std::clamp(r2, p.a, p.b);
    emit(p.a, x1, c);
    emit(x1, x2, p.s);
    emit(x2, p.b, c);
  }
  pieces.swap(next);
}

// The optimal partition of z into segments of at least m samples under cost sum (z - mean)^2 and
// `beta` per change; returns the first index of every segment but the first, ascending.
std::vector<size_t> OptimalPartition(const std::vector<double>& z, double beta, size_t m) {
  const size_t n = z.size();
  if (m < 1) m = 1;
  if (n < 2 * m) return {};
  std::vector<double> s1(n + 1, 0), s2(n + 1, 0);
  double lo = z[0], hi = z[0];
  for (size_t i = 0; i < n; ++i) {
    s1[i + 1] = s1[i] + z[i];
    s2[i + 1] = s2[i] + z[i] * z[i];
    lo = std::min(lo, z[i]);
    hi = std::max(hi, z[i]);
  }
  if (!(hi > lo)) hi = lo + 1;  // a constant series: any non-empty domain holds its one mean
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // F[t]: the cost of z[0, t) with beta per segment (so the optimum is F[n] - beta).
  std::vector<double> f(n + 1, kInf);
  std::vector<size_t> last(n + 1, 0);
  f[0] = 0;
  std::vector<Piece> pieces, next;
  // q_s(mu) at time t = F[s] + beta + (S2[t] - S2[s]) - 2 mu (S1[t] - S1[s]) + (t - s) mu^2.
  for (size_t t = m; t <= n; ++t) {
    const size_t c = t - m;  // the candidate entering now
    if (c == 0) {
      pieces.push_back({lo, hi, 0});
    } else if (f[c] < kInf) {
      AddCandidate(c, s1, s2, f, pieces, next);
    }
    double best = kInf;
    size_t arg = 0;
    const double td = static_cast<double>(t);
    for (const Piece& p : pieces) {
      const double len = td - static_cast<double>(p.s);
      const double sum = s1[t] - s1[p.s];
      const double mu = std::clamp(sum / len, p.a, p.b);
      const double q = f[p.s] + beta + (s2[t] - s2[p.s]) - 2 * mu * sum + len * mu * mu;
      if (q < best) {
        best = q;
        arg = p.s;
      }
    }
    f[t] = best;
    last[t] = arg;
  }
  std::vector<size_t> cps;
  for (size_t t = n; t > 0 && last[t] > 0; t = last[t]) cps.push_back(last[t]);
  std::reverse(cps.begin(), cps.end());
  return cps;
}

double SegmentMean(const std::vector<double>& y, size_t a, size_t b) {
  double s = 0;
  for (size_t i = a; i < b; ++i) s += y[i];
  return s / static_cast<double>(b - a);
}

// The changes at `cps` with their segment means; the smallest relative step below min_relative
// is merged away (its two segments joined) until none is left.
std::vector<ChangePoint> MergeSmallSteps(const std::vector<double>& y, std::vector<size_t> cps, double min_relative) {
  for (;;) {
    std::vector<ChangePoint> out;
    std::vector<double> means;
    for (size_t k = 0; k <= cps.size(); ++k) {
      const size_t a = k == 0 ? 0 : cps[k - 1], b = k == cps.size() ? y.size() : cps[k];
      means.push_back(SegmentMean(y, a, b));
    }
    size_t worst = cps.size();
    double worst_step = std::numeric_limits<double>::infinity();
    for (size_t k = 0; k < cps.size(); ++k) {
      ChangePoint cp;
      cp.index = cps[k];
      cp.mean_before = means[k];
      cp.mean_after = means[k + 1];
      cp.relative_step = cp.mean_before != 0 ? (cp.mean_after - cp.mean_before) / std::fabs(cp.mean_before)
                                             : std::numeric_limits<double>::infinity();
      if (std::fabs(cp.relative_step) < min_relative && std::fabs(cp.relative_step) < worst_step) {
        worst_step = std::fabs(cp.relative_step);
        worst = k;
      }
      out.push_back(cp);
    }
    if (worst == cps.size()) return out;
    cps.erase(cps.begin() + static_cast<std::ptrdiff_t>(worst));
  }
}

// Pooled within-segment least squares of y on the sample index.
struct WithinFit {
  double slope = 0, sxx = 0, rss = 0;
  std::vector<double> residual;
};
WithinFit FitWithin(std::span<const double> y, const std::vector<size_t>& cps, bool with_slope) {
  WithinFit fit;
  const size_t n = y.size();
  std::vector<double> ibar, ybar;
  double sxy = 0;
  for (size_t k = 0; k <= cps.size(); ++k) {
    const size_t a = k == 0 ? 0 : cps[k - 1], b = k == cps.size() ? n : cps[k];
    double mi = 0, my = 0;
    for (size_t i = a; i < b; ++i) {
      mi += static_cast<double>(i);
      my += y[i];
    }
    mi /= static_cast<double>(b - a);
    my /= static_cast<double>(b - a);
    for (size_t i = a; i < b; ++i) {
      const double di = static_cast<double>(i) - mi;
      fit.sxx += di * di;
      sxy += di * (y[i] - my);
    }
    ibar.push_back(mi);
    ybar.push_back(my);
  }
  fit.slope = with_slope && fit.sxx > 0 ? sxy / fit.sxx : 0;
  fit.residual.resize(n);
  for (size_t k = 0; k <= cps.size(); ++k) {
    const size_t a = k == 0 ? 0 : cps[k - 1], b = k == cps.size() ? n : cps[k];
    for (size_t i = a; i < b; ++i) {
      const double e = y[i] - ybar[k] - fit.slope * (static_cast<double>(i) - ibar[k]);
      fit.residual[i] = e;
      fit.rss += e * e;
    }
  }
  return fit;
}

std::vector<size_t> Indices(const std::vector<ChangePoint>& changes) {
  std::vector<size_t> v;
  for (const auto& c : changes) v.push_back(c.index);
  return v;
}

struct Prepared {
  NoiseEstimate noise;
  std::vector<double> y;  // the series to segment (median-filtered when asked)
  double scale = 0;       // the long-run sigma, floored; 0: nothing to segment
  double beta = 0;        // the penalty in units of scale^2
};

Prepared Prepare(std::span<const double> x, const ChangePointOptions& o) {
  Prepared p;
  p.noise = EstimateNoise(x);
  p.y = o.median3_prefilter ? Median3(x) : std::vector<double>(x.begin(), x.end());
  if (x.size() < 2) return p;
  std::vector<double> absy(p.y);
  const double level = MedianAbsInPlace(absy);
  p.scale = std::max(p.noise.long_run_sigma, kSigmaFloorRelative * level);
  p.beta = o.penalty_log_factor * std::log(static_cast<double>(x.size()));
  return p;
}

std::vector<size_t> Segment(const std::vector<double>& y, double scale, double beta, size_t min_segment) {
  const double center = Median(y);
  std::vector<double> z(y.size());
  for (size_t i = 0; i < y.size(); ++i) z[i] = (y[i] - center) / scale;
  return OptimalPartition(z, beta, min_segment);
}

}  // namespace

double RobustNoiseSigma(std::span<const double> x) { return LagScale(x, 1, false) / std::sqrt(2.0); }

NoiseEstimate EstimateNoise(std::span<const double> x) {
  NoiseEstimate e;
  const double s1 = LagScale(x, 1), s2 = LagScale(x, 2);
  if (s1 <= 0) return e;
  e.rho = std::clamp((s2 / s1) * (s2 / s1) - 1.0, 0.0, kMaxNoiseRho);
  e.sigma = s1 / std::sqrt(2.0 * (1.0 - e.rho));
  e.long_run_sigma = e.sigma * std::sqrt((1.0 + e.rho) / (1.0 - e.rho));
  return e;
}

std::vector<ChangePoint> DetectChangePoints(std::span<const double> x, const ChangePointOptions& options) {
  const Prepared p = Prepare(x, options);
  if (p.scale <= 0) return {};
  return MergeSmallSteps(p.y, Segment(p.y, p.scale, p.beta, options.min_segment), options.min_relative_step);
}

Drift DetectDrift(std::span<const double> x, const std::vector<ChangePoint>& changes, double min_relative_change) {
  Drift d;
  const size_t n = x.size();
  const size_t params = changes.size() + 2;  // one level per segment and the slope
  if (n <= params + 1) return d;
  const WithinFit fit = FitWithin(x, Indices(changes), true);
  if (fit.sxx <= 0) return d;
  double mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(n);
  d.slope_per_sample = fit.slope;
  d.relative_change = mean != 0 ? fit.slope * static_cast<double>(n - 1) / std::fabs(mean) : 0;
  const double var = fit.rss / static_cast<double>(n - params);
  const double rho = EstimateNoise(fit.residual).rho;
  const double se = std::sqrt(var / fit.sxx * (1 + rho) / (1 - rho));
  d.t_statistic = se > 0 ? fit.slope / se : (fit.slope != 0 ? std::copysign(1e300, fit.slope) : 0);
  d.found = std::fabs(d.t_statistic) > kDriftMinT && std::fabs(d.relative_change) >= min_relative_change;
  return d;
}

SeriesAnalysis AnalyzeSeries(std::span<const double> x, const ChangePointOptions& options, double min_relative_drift) {
  SeriesAnalysis r;
  const Prepared p = Prepare(x, options);
  r.noise = p.noise;
  if (p.scale <= 0) return r;
  const double var = p.scale * p.scale;
  const size_t n = p.y.size();

  // Steps only.
  const auto steps =
      MergeSmallSteps(p.y, Segment(p.y, p.scale, p.beta, options.min_segment), options.min_relative_step);
  const double cost_steps =
      FitWithin(p.y, Indices(steps), false).rss / var + p.beta * static_cast<double>(steps.size());

  // Steps plus a trend: detrend by the whole-series slope, segment, refit the slope within.
  const double b0 = FitWithin(p.y, {}, true).slope;
  std::vector<double> detrended(n);
  const double mid = static_cast<double>(n - 1) / 2;
  for (size_t i = 0; i < n; ++i) detrended[i] = p.y[i] - b0 * (static_cast<double>(i) - mid);
  const auto trend_cps = Segment(detrended, p.scale, p.beta, options.min_segment);
  const WithinFit refit = FitWithin(p.y, trend_cps, true);
  for (size_t i = 0; i < n; ++i) detrended[i] = p.y[i] - refit.slope * (static_cast<double>(i) - mid);
  const auto trend_steps = MergeSmallSteps(detrended, trend_cps, options.min_relative_step);
  const double cost_trend =
      FitWithin(p.y, Indices(trend_steps), true).rss / var + p.beta * static_cast<double>(trend_steps.size() + 1);

  r.trend_model = cost_trend < cost_steps;
  r.changes = r.trend_model ? trend_steps : steps;
  r.drift = DetectDrift(p.y, r.changes, min_relative_drift);
  return r;
}

}  // namespace paratune
