#include "util/stats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace paratune {
namespace {

// Figures by hand; the quantiles are pandas' (Series([1, 2, 3, 4]).quantile(0.25) == 1.75).
TEST(Stats, QuantileInterpolatesLinearlyLikePandas) {
  const std::vector<double> v = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(SortedQuantile(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(SortedQuantile(v, 0.25), 1.75);  // position 0.75
  EXPECT_DOUBLE_EQ(SortedQuantile(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(SortedQuantile(v, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(Quantile({4, 1, 3, 2}, 0.75), 3.25);  // sorted first; position 2.25
  EXPECT_DOUBLE_EQ(SortedQuantile({7}, 0.3), 7.0);
  EXPECT_TRUE(std::isnan(SortedQuantile({}, 0.5)));
}

TEST(Stats, MedianIsTheMiddleOrTheMeanOfTheTwoMiddleValues) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Median({}), 0.0);
}

TEST(Stats, SampleStandardDeviation) {
  // Mean 5, squared deviations 9+1+1+1+0+0+4+16 = 32, over n - 1 = 7.
  EXPECT_DOUBLE_EQ(SampleStdDev({2, 4, 4, 4, 5, 5, 7, 9}), std::sqrt(32.0 / 7.0));
  EXPECT_DOUBLE_EQ(SampleStdDev({5}), 0.0);
  EXPECT_DOUBLE_EQ(SampleStdDev({}), 0.0);
}

TEST(Stats, NearestRankPercentile) {
  const std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_DOUBLE_EQ(NearestRankPercentile(v, 0.9), 9.0);    // rank ceil(9) = 9
  EXPECT_DOUBLE_EQ(NearestRankPercentile(v, 0.91), 10.0);  // rank ceil(9.1) = 10
  EXPECT_DOUBLE_EQ(NearestRankPercentile(v, 0.05), 1.0);   // rank ceil(0.5) = 1
  EXPECT_DOUBLE_EQ(NearestRankPercentile(v, 0.0), 1.0);    // rank 0 counts as the first
  EXPECT_DOUBLE_EQ(NearestRankPercentile({0.3}, 0.9), 0.3);
  EXPECT_TRUE(std::isnan(NearestRankPercentile({}, 0.9)));
}

TEST(Stats, Describe) {
  const SummaryStats s = Describe({3, 1, 2, 4});
  EXPECT_EQ(s.count, 4);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 4.0);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(5.0 / 3.0));  // 2.25 + 0.25 + 0.25 + 2.25 over 3
  const SummaryStats e = Describe({});
  EXPECT_EQ(e.count, 0);
  EXPECT_DOUBLE_EQ(e.mean, 0.0);
}

TEST(Stats, RobustZScore) {
  // Median 3; absolute deviations {2, 1, 0, 1, 97}, whose median (the MAD) is 1.
  const RobustCenter c = MedianAndMad({1, 2, 3, 4, 100});
  EXPECT_DOUBLE_EQ(c.median, 3.0);
  EXPECT_DOUBLE_EQ(c.mad, 1.0);
  EXPECT_DOUBLE_EQ(RobustZ(100, c), 97 / 1.4826);
  EXPECT_DOUBLE_EQ(RobustZ(3, c), 0.0);
  // No spread: every z is 0 rather than infinite.
  const RobustCenter flat = MedianAndMad({2, 2, 2, 9});
  EXPECT_DOUBLE_EQ(flat.mad, 0.0);
  EXPECT_DOUBLE_EQ(RobustZ(9, flat), 0.0);
}

}  // namespace
}  // namespace paratune
