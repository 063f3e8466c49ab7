// Scales, nice ticks and value formats (scale.h). Expected ticks are worked by hand from
// Heckbert's loose labelling (Graphics Gems 1990): range = nice(max - min) rounded up,
// spacing = nice(range / (target - 1)) rounded, domain widened to multiples of the spacing.
#include "report/scale.h"

#include <cmath>
#include <limits>

#include "util/test_util.h"

namespace paratune {
namespace {

void ExpectTicks(const Ticks& t, const std::vector<double>& want) {
  ASSERT_EQ(t.values.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(t.values[i], want[i]) << "tick " << i;
}

TEST(NiceTicks, ZeroTo97) {
  // range nice(97) = 100, spacing nice(100 / 4 = 25) = 20, domain [0, 100].
  const Ticks t = NiceTicks(0, 97);
  ExpectTicks(t, {0, 20, 40, 60, 80, 100});
  EXPECT_DOUBLE_EQ(t.step, 20);
  EXPECT_DOUBLE_EQ(t.lo, 0);
  EXPECT_DOUBLE_EQ(t.hi, 100);
  EXPECT_EQ(t.decimals, 0);
}

TEST(NiceTicks, SmallFractions) {
  // range nice(0.074) = 0.1, spacing nice(0.025) = 0.02, floor(0.013 / 0.02) = 0, ceil(4.35) = 5.
  const Ticks t = NiceTicks(0.013, 0.087);
  ExpectTicks(t, {0, 0.02, 0.04, 0.06, 0.08, 0.1});
  EXPECT_EQ(t.decimals, 2);
  EXPECT_DOUBLE_EQ(t.hi, 0.1);
}

TEST(NiceTicks, NegativeRanges) {
  // range nice(44) = 50, spacing nice(12.5) = 10: [-50, 0].
  ExpectTicks(NiceTicks(-47, -3), {-50, -40, -30, -20, -10, 0});
  EXPECT_FALSE(std::signbit(NiceTicks(-47, -3).values.back()));  // 0, not -0
  // range 10, spacing nice(2.5) = 2: [-4, 8].
  ExpectTicks(NiceTicks(-3, 7), {-4, -2, 0, 2, 4, 6, 8});
  // Reversed arguments are the same range.
  ExpectTicks(NiceTicks(7, -3), {-4, -2, 0, 2, 4, 6, 8});
}

TEST(NiceTicks, SinglePointAndZero) {
  // 5 alone: [0, 10], range 10, spacing 2.
  ExpectTicks(NiceTicks(5, 5), {0, 2, 4, 6, 8, 10});
  // 0 alone: [-1, 1], range 2, spacing nice(0.5) = 0.5.
  const Ticks z = NiceTicks(0, 0);
  ExpectTicks(z, {-1, -0.5, 0, 0.5, 1});
  EXPECT_EQ(z.decimals, 1);
  // -3 alone: [-4, -2], spacing 0.5.
  ExpectTicks(NiceTicks(-3, -3), {-4, -3.5, -3, -2.5, -2});
}

TEST(NiceTicks, IncludeZeroForBars) {
  ExpectTicks(NiceTicks(40, 97, 5, true), {0, 20, 40, 60, 80, 100});
  ExpectTicks(NiceTicks(-47, -3, 5, true), {-50, -40, -30, -20, -10, 0});
}

TEST(NiceTicks, HugeRangesStayBounded) {
  // 1e-12 .. 1e12: range 1e12, spacing nice(2.5e11) = 2e11, [0, 1e12]: six ticks.
  const Ticks t = NiceTicks(1e-12, 1e12);
  ExpectTicks(t, {0, 2e11, 4e11, 6e11, 8e11, 1e12});
  // Wider than a double holds as a difference: finite, bounded, covering the data.
  const double big = std::numeric_limits<double>::max() / 2;
  const Ticks h = NiceTicks(-big * 1.9, big * 1.9);
  EXPECT_LE(h.values.size(), 12u);
  EXPECT_GE(h.values.size(), 2u);
  for (double v : h.values) EXPECT_TRUE(std::isfinite(v));
  EXPECT_LE(h.lo, -big * 1.9);
  EXPECT_GE(h.hi, big * 1.9);
  // A sliver far from zero, where the spacing rounds away: the ends only, never a long loop.
  const Ticks s = NiceTicks(1e15, 1e15 + 0.125);
  EXPECT_LE(s.values.size(), 12u);
  EXPECT_LE(s.lo, 1e15);
  EXPECT_GE(s.hi, 1e15 + 0.125);
}

TEST(NiceTicks, NotFiniteRejected) {
  EXPECT_CONTAINS(InputErrorOf([] { NiceTicks(std::nan(""), 1); }), "not finite");
  EXPECT_CONTAINS(InputErrorOf([] { NiceTicks(0, std::numeric_limits<double>::infinity()); }), "not finite");
}

// Duration ticks: each candidate step's intervals over the widened domain, ceil(max / step) -
// floor(min / step), against the target 5; the nearest wins (the larger on a tie).
TEST(DurationTicks, DaysHoursMinutesSeconds) {
  constexpr double kMin = 60, kH = 3600, kD = 86400;
  // 0 .. 5.79 d: 12 h gives 12 intervals, 1 d 6, 2 d 3, 7 d 1: 1 d (|6 - 5| = 1).
  Ticks t = DurationTicks(0, 5.79 * kD);
  ExpectTicks(t, {0, kD, 2 * kD, 3 * kD, 4 * kD, 5 * kD, 6 * kD});
  EXPECT_DOUBLE_EQ(t.step, kD);
  EXPECT_DOUBLE_EQ(t.hi, 6 * kD);
  EXPECT_EQ(t.label_unit, "d");
  EXPECT_DOUBLE_EQ(t.label_unit_s, kD);
  // 0 .. 90 min: 10 min gives 9, 15 min 6, 30 min 3, 1 h 2: 15 min.
  t = DurationTicks(0, 90 * kMin);
  ExpectTicks(t, {0, 15 * kMin, 30 * kMin, 45 * kMin, 60 * kMin, 75 * kMin, 90 * kMin});
  EXPECT_EQ(t.label_unit, "min");
  // 0 .. 20 h: 3 h gives 7, 6 h 4, 12 h 2: 6 h, the domain widened to 24 h.
  t = DurationTicks(0, 20 * kH);
  ExpectTicks(t, {0, 6 * kH, 12 * kH, 18 * kH, 24 * kH});
  EXPECT_EQ(t.label_unit, "h");
  // 0 .. 40 s: 5 s gives 8, 10 s 4, 15 s 3: 10 s.
  t = DurationTicks(0, 40);
  ExpectTicks(t, {0, 10, 20, 30, 40});
  EXPECT_EQ(t.label_unit, "s");
  // 1 h .. 2.5 h: 15 min gives 10 - 4 = 6, 30 min 5 - 2 = 3: 15 min from 60 min.
  t = DurationTicks(kH, 2.5 * kH);
  ExpectTicks(t, {60 * kMin, 75 * kMin, 90 * kMin, 105 * kMin, 120 * kMin, 135 * kMin, 150 * kMin});
  EXPECT_DOUBLE_EQ(t.lo, kH);
  // 0 .. 1000 d: 100 d gives 10, 200 d 5: 200 d.
  t = DurationTicks(0, 1000 * kD);
  ExpectTicks(t, {0, 200 * kD, 400 * kD, 600 * kD, 800 * kD, 1000 * kD});
  EXPECT_EQ(t.label_unit, "d");
}

TEST(DurationTicks, ShortSpansAreDecimalSeconds) {
  // 0 .. 7 s is under 10 s: NiceTicks (range nice(7) = 10, spacing nice(2.5) = 2), no time unit.
  const Ticks t = DurationTicks(0, 7);
  ExpectTicks(t, {0, 2, 4, 6, 8});
  EXPECT_DOUBLE_EQ(t.label_unit_s, 0);
  ExpectTicks(DurationTicks(0, 0.0035), NiceTicks(0, 0.0035).values);
  // A single value and bars' zero: as NiceTicks.
  ExpectTicks(DurationTicks(5, 5), {0, 2, 4, 6, 8, 10});
  ExpectTicks(DurationTicks(100, 300, 5, true), {0, 60, 120, 180, 240, 300});  // 1 min: |5 - 5| = 0
  EXPECT_THROW(DurationTicks(0, std::numeric_limits<double>::quiet_NaN()), InputError);
  EXPECT_THROW(DurationTicks(0, std::numeric_limits<double>::infinity()), InputError);
  // The widest finite span still ends in bounded ticks (decimal NiceTicks when max - min overflows).
  EXPECT_LE(DurationTicks(-1e308, 1e308).values.size(), 51u);
  EXPECT_LE(DurationTicks(0, 1e308).values.size(), 51u);
}

TEST(AxisTicks, DurationsOnlyForSeconds) {
  EXPECT_EQ(AxisTicks(0, 5400, "s").label_unit, "min");
  ExpectTicks(AxisTicks(0, 5400, "B"), NiceTicks(0, 5400).values);
  EXPECT_DOUBLE_EQ(AxisTicks(0, 5400, "").label_unit_s, 0);
}

TEST(LogTicks, Decades) {
  const Ticks t = LogTicks(3, 4000);
  ExpectTicks(t, {1, 10, 100, 1000, 10000});
  EXPECT_DOUBLE_EQ(t.lo, 1);
  EXPECT_DOUBLE_EQ(t.hi, 10000);
  EXPECT_DOUBLE_EQ(t.step, 0);
  // Exact decades stay: [100, 1000] for 100 .. 1000, one decade up for 100 alone.
  ExpectTicks(LogTicks(100, 1000), {100, 1000});
  ExpectTicks(LogTicks(100, 100), {100, 1000});
  ExpectTicks(LogTicks(0.002, 0.5), {0.001, 0.01, 0.1, 1});
  EXPECT_EQ(LogTicks(0.002, 0.5).decimals, 3);
}

TEST(LogTicks, WideRangeLabelsEveryKthDecade) {
  // 1e-300 .. 1e300: 600 decades, every 60th labelled: 11 ticks.
  const Ticks t = LogTicks(1e-300, 1e300);
  EXPECT_LE(t.values.size(), 11u);
  EXPECT_LE(t.lo, 1e-300);
  EXPECT_GE(t.hi, 1e300);
}

TEST(LogTicks, NonPositiveRejected) {
  EXPECT_CONTAINS(InputErrorOf([] { LogTicks(0, 5); }), "above 0");
  EXPECT_CONTAINS(InputErrorOf([] { LogTicks(-2, 5); }), "got -2");
  EXPECT_CONTAINS(InputErrorOf([] { LogTicks(1, std::nan("")); }), "not finite");
}

TEST(Scale, LinearMapsAndClamps) {
  const Scale x = Scale::Linear(0, 100, 64, 744);
  EXPECT_DOUBLE_EQ(x(50), 404);
  EXPECT_DOUBLE_EQ(x(0), 64);
  EXPECT_DOUBLE_EQ(x(-10), 64);
  EXPECT_DOUBLE_EQ(x(200), 744);
  EXPECT_DOUBLE_EQ(x(std::nan("")), 64);
  // y grows down: 0 at the bottom (312), 100 at the top (28); 25 -> 312 - 71 = 241.
  const Scale y = Scale::Linear(0, 100, 312, 28);
  EXPECT_DOUBLE_EQ(y(25), 241);
}

TEST(Scale, LogMapsDecadesEvenly) {
  const Scale s = Scale::Log(1, 10000, 0, 400);
  EXPECT_NEAR(s(100), 200, 1e-9);
  EXPECT_NEAR(s(10), 100, 1e-9);
  EXPECT_DOUBLE_EQ(s(0), 0);  // not on a log axis: the range's start
  EXPECT_CONTAINS(InputErrorOf([] { Scale::Log(0, 10, 0, 1); }), "above 0");
}

TEST(CheckFinite, NamesChartSeriesAndIndex) {
  CheckFinite({1, 2, 3}, "plan-tps", "tokens/s");  // no throw
  const std::string nan = InputErrorOf([] { CheckFinite({1, std::nan(""), 3}, "plan-tps", "tokens/s"); });
  EXPECT_EQ(nan, "chart 'plan-tps': series 'tokens/s' has a NaN value at index 1");
  const std::string inf = InputErrorOf([] {
    CheckFinite({1, 2, -std::numeric_limits<double>::infinity()}, "mem", "activations");
  });
  EXPECT_EQ(inf, "chart 'mem': series 'activations' has an infinite value at index 2");
}

TEST(FormatValue, UnitsAndPrefixes) {
  EXPECT_EQ(FormatValue(1.25e9, "B"), "1.25 GB");
  EXPECT_EQ(FormatValue(80e9, "B"), "80 GB");
  EXPECT_EQ(FormatValue(0, "B"), "0 B");
  EXPECT_EQ(FormatValue(450e9, "B/s"), "450 GB/s");
  EXPECT_EQ(FormatValue(3.12e14, "FLOP/s"), "312 TFLOP/s");
  EXPECT_EQ(FormatValue(12345, ""), "12.3k");
  EXPECT_EQ(FormatValue(-1500, ""), "-1.5k");
  EXPECT_EQ(FormatValue(999.7, ""), "1k");  // rounds into the next prefix, not "1000"
  EXPECT_EQ(FormatValue(0.0123, ""), "0.0123");
  EXPECT_EQ(FormatValue(1234, "tokens/s"), "1.23k tokens/s");
  EXPECT_EQ(FormatValue(std::nan(""), "s"), "n/a");
}

TEST(FormatValue, FractionsAsPercent) {
  EXPECT_EQ(FormatValue(0.4567, "fraction"), "45.7%");
  EXPECT_EQ(FormatValue(1, "fraction"), "100%");
  EXPECT_EQ(FormatValue(0.05, "fraction"), "5%");
}

TEST(FormatValue, SecondsPickTheirUnit) {
  EXPECT_EQ(FormatValue(2.5e-8, "s"), "25 ns");
  EXPECT_EQ(FormatValue(1.5e-6, "s"), "1.5 \xC2\xB5s");
  EXPECT_EQ(FormatValue(0.34, "s"), "340 ms");
  EXPECT_EQ(FormatValue(12.5, "s"), "12.5 s");
  EXPECT_EQ(FormatValue(90, "s"), "1.5 min");
  EXPECT_EQ(FormatValue(59.99, "s"), "1 min");  // 59.99 s rounds to 60 s: a minute
  EXPECT_EQ(FormatValue(7560, "s"), "2.1 h");
  EXPECT_EQ(FormatValue(172800, "s"), "2 d");
  EXPECT_EQ(FormatValue(0, "s"), "0 s");
}

}  // namespace
}  // namespace paratune
