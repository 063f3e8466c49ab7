#include "util/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace paratune {

double SortedQuantile(const std::vector<double>& v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return SortedQuantile(v, q);
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

double SampleStdDev(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

double NearestRankPercentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::min(std::max<size_t>(rank, 1), sorted.size()) - 1];
}

SummaryStats Describe(std::vector<double> v) {
  SummaryStats s;
  s.count = static_cast<int64_t>(v.size());
  if (v.empty()) return s;
  if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  s.min = v.front();
  s.max = v.back();
  s.median = SortedQuantile(v, 0.5);
  s.stddev = SampleStdDev(v);
  return s;
}

RobustCenter MedianAndMad(const std::vector<double>& values) {
  RobustCenter c;
  c.median = Median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double x : values) deviations.push_back(std::fabs(x - c.median));
  c.mad = Median(std::move(deviations));
  return c;
}

double RobustZ(double x, const RobustCenter& c) { return c.mad > 0 ? (x - c.median) / (kMadToSigma * c.mad) : 0; }

}  // namespace paratune
