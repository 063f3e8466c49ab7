// The statistics paratune computes over samples, written once: quantiles with linear
// interpolation (pandas' default, which HTA's tables use), the median, the sample standard
// deviation, a five-figure summary, the robust z-score of the straggler rule and the
// nearest-rank percentile of the validation tables. Each keeps the exact arithmetic of the code
// it replaced, so figures compared with HTA's to the last printed digit stay the same.
#pragma once

#include <cstdint>
#include <vector>

namespace paratune {

// Quantile q (0..1) of `sorted` (ascending) with linear interpolation between the two nearest
// ranks, as pandas Series.quantile(q) computes it: position q * (n - 1), v[lo] + (v[hi] - v[lo])
// * fraction. NaN for an empty sample.
double SortedQuantile(const std::vector<double>& sorted, double q);

// The same of an unsorted sample (sorted here).
double Quantile(std::vector<double> values, double q);

// The middle value, or the mean of the two middle values ((a + b) / 2) for an even count; 0 for
// an empty sample.
double Median(std::vector<double> values);

// Sample standard deviation (n - 1 in the denominator) with the mean summed in the given order;
// 0 for fewer than two values.
double SampleStdDev(const std::vector<double>& values);

// Nearest-rank percentile p (0..1) of `sorted` (ascending): the value at rank ceil(p * n), at
// least the first. NaN for an empty sample.
double NearestRankPercentile(const std::vector<double>& sorted, double p);

struct SummaryStats {
  int64_t count = 0;
  double mean = 0, median = 0, min = 0, max = 0, stddev = 0;  // median: SortedQuantile 0.5; stddev: SampleStdDev
};
// Count, mean (summed in ascending order), median, min, max and sample standard deviation;
// all zero for an empty sample.
SummaryStats Describe(std::vector<double> values);

// The centre and spread of the modified z-score (Iglewicz & Hoaglin 1993, "How to Detect and
// Handle Outliers"): the median and the median absolute deviation from it.
struct RobustCenter {
  double median = 0;
  double mad = 0;
};
RobustCenter MedianAndMad(const std::vector<double>& values);

// 1 / Phi^-1(3/4): scales the MAD to the standard deviation of normal data.
constexpr double kMadToSigma = 1.4826;

// (x - median) / (1.4826 MAD); 0 when the MAD is 0 (no spread to measure against).
double RobustZ(double x, const RobustCenter& c);

}  // namespace paratune
