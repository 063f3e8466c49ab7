#include "analysis/periodicity.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace paratune {
namespace {

// Normal draws from mt19937_64 by Box-Muller (the same numbers with every standard library,
// unlike std::normal_distribution).
class Noise {
 public:
  explicit Noise(uint64_t seed) : g_(seed) {}
  double Normal(double sd) {
    const double u1 = 1.0 - (g_() >> 11) * 0x1.0p-53, u2 = (g_() >> 11) * 0x1.0p-53;
    return sd * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  std::mt19937_64 g_;
};

// A starved GPU's utilisation: busy (high) for duty * period samples, then waiting (low).
std::vector<double> Square(size_t n, double period, double duty, double low, double high, double noise_sd,
                           uint64_t seed) {
  Noise z(seed);
  std::vector<double> x(n);
  for (size_t i = 0; i < n; ++i) {
    const double phase = std::fmod(static_cast<double>(i), period) / period;
    x[i] = (phase < duty ? high : low) + z.Normal(noise_sd);
  }
  return x;
}

// Saw-tooth: utilisation ramps up over each period and drops back.
std::vector<double> Saw(size_t n, double period, double low, double high, double noise_sd, uint64_t seed) {
  Noise z(seed);
  std::vector<double> x(n);
  for (size_t i = 0; i < n; ++i) {
    const double phase = std::fmod(static_cast<double>(i), period) / period;
    x[i] = low + (high - low) * phase + z.Normal(noise_sd);
  }
  return x;
}

TEST(Periodicity, SquareWaveWithNoise) {
  // Period 20 samples, busy 70% of it, 0.05..0.98 with noise of sd 0.08 (about what
  // nvidia-smi's 1 s utilisation wanders at a steady load), 600 samples (10 min at 1 Hz).
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const auto x = Square(600, 20, 0.7, 0.05, 0.98, 0.08, seed);
    const Periodicity p = FindPeriodicity(x, 2, 300);
    ASSERT_TRUE(p.found) << "seed " << seed;
    EXPECT_NEAR(static_cast<double>(p.period_samples), 20.0, 1.0) << "seed " << seed;
    EXPECT_NEAR(p.duty_cycle, 0.7, 0.05) << "seed " << seed;
    EXPECT_GT(p.autocorrelation, 0.8);
    EXPECT_NEAR(p.low_level, 0.05, 0.12);
    EXPECT_NEAR(p.high_level, 0.98, 0.12);
  }
}

TEST(Periodicity, NonIntegerPeriodWithinOneSample) {
  const auto x = Square(900, 12.5, 0.6, 0.1, 0.9, 0.05, 7);
  const Periodicity p = FindPeriodicity(x, 2, 300);
  ASSERT_TRUE(p.found);
  // The ACF peaks at 12 or 13 (and exactly at 25 = 2 periods); the first peak within the band.
  EXPECT_NEAR(static_cast<double>(p.period_samples), 12.5, 1.0);
}

TEST(Periodicity, SawToothWithNoise) {
  for (uint64_t seed = 11; seed <= 15; ++seed) {
    const auto x = Saw(720, 36, 0.1, 1.0, 0.06, seed);
    const Periodicity p = FindPeriodicity(x, 2, 360);
    ASSERT_TRUE(p.found) << "seed " << seed;
    EXPECT_NEAR(static_cast<double>(p.period_samples), 36.0, 1.0) << "seed " << seed;
    // A linear ramp spends half its time above its midpoint.
    EXPECT_NEAR(p.duty_cycle, 0.5, 0.06);
  }
}

TEST(Periodicity, NoneOnWhiteNoise) {
  // Noise of sd 0.3 swings well past min_swing, but its ACF stays within a few 1/sqrt(n).
  for (uint64_t seed = 21; seed <= 30; ++seed) {
    Noise z(seed);
    std::vector<double> x(600);
    for (double& v : x) v = 0.5 + z.Normal(0.3);
    const Periodicity p = FindPeriodicity(x, 2, 300);
    EXPECT_FALSE(p.found) << "seed " << seed << " period " << p.period_samples << " acf " << p.autocorrelation;
  }
}

TEST(Periodicity, NoneOnConstantOrSmallWander) {
  std::vector<double> c(600, 0.97);
  EXPECT_FALSE(FindPeriodicity(c, 2, 300).found);
  // A clean periodic ripple of 0.05 is below min_swing (0.3): a steady load, not starvation.
  const auto ripple = Square(600, 20, 0.5, 0.93, 0.98, 0.0, 1);
  const Periodicity p = FindPeriodicity(ripple, 2, 300);
  EXPECT_FALSE(p.found);
  EXPECT_NEAR(p.high_level - p.low_level, 0.05, 1e-9);
}

TEST(Periodicity, TooShortOrOutOfRange) {
  const auto x = Square(600, 20, 0.7, 0.05, 0.98, 0.0, 1);
  EXPECT_FALSE(FindPeriodicity(std::span<const double>(x.data(), 5), 2, 300).found);
  // The period (20) is outside the searched lags [30, 50] and its multiples start at 40:
  // the first repetition found is 40, twice the period.
  const Periodicity p = FindPeriodicity(x, 30, 50);
  ASSERT_TRUE(p.found);
  EXPECT_EQ(p.period_samples, 40u);
  // max_period is clipped to n/3: a period of 250 in 600 samples is not searched.
  const auto slow = Square(600, 250, 0.5, 0.0, 1.0, 0.0, 1);
  EXPECT_FALSE(FindPeriodicity(slow, 2, 1000).found);
  std::vector<double> with_nan = x;
  with_nan[3] = std::nan("");
  EXPECT_FALSE(FindPeriodicity(with_nan, 2, 300).found);
}

}  // namespace
}  // namespace paratune
