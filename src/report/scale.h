// Scales and ticks of the report's charts: a linear or logarithmic map from a data domain to a
// pixel range, and "nice" tick values (1, 2 or 5 times a power of ten: Heckbert, "Nice Numbers
// for Graph Labels", Graphics Gems, 1990), or, on duration axes, steps of whole seconds,
// minutes, hours or days (DurationTicks), so every axis of every chart is computed once.
// An empty or single-value domain is widened to a usable one; NaN or infinite input is rejected
// (InputError naming the chart and series), never drawn.
#pragma once

#include <string>
#include <vector>

namespace paratune {

struct Ticks {
  std::vector<double> values;  // ascending, inside [lo, hi] of the niced domain
  double lo = 0, hi = 1;       // the niced domain (contains the data)
  double step = 0;             // linear: tick spacing; log: 0
  int decimals = 0;            // decimals that print every tick distinctly
  // Duration ticks (DurationTicks): the unit their labels are written in ("s", "min", "h", "d")
  // and its length in seconds; 0 for any other ticks.
  double label_unit_s = 0;
  std::string label_unit;
};

// About `target` nice ticks covering [min, max] (min <= max, both finite). A single value v
// gets a domain around it ([0, 2v] for v > 0, [v - 1, v + 1] for v = 0 or < 0); with
// `include_zero` the domain starts at 0 for positive data (bars).
Ticks NiceTicks(double min, double max, int target = 5, bool include_zero = false);
// Ticks of a duration axis (values in seconds) covering [min, max]: the step is the one among
// 1, 2, 5, 10, 15, 30 s; 1, 2, 5, 10, 15, 30 min; 1, 2, 3, 6, 12 h; 1, 2, 7, 14, 28 d; then
// 50, 100, 200, 500, ... d whose number of intervals over the niced domain is nearest `target`
// (the larger step on a tie), the domain widened to multiples of it as NiceTicks does; the
// labels are in the step's unit ("30 min", "6 h", "2 d"). A span under 10 s, or one a double
// cannot hold, gets NiceTicks (decimal seconds, which FormatValue prints in ms or µs).
Ticks DurationTicks(double min, double max, int target = 5, bool include_zero = false);
// The ticks of an axis in `unit`: DurationTicks for "s", NiceTicks otherwise.
Ticks AxisTicks(double min, double max, const std::string& unit, int target = 5, bool include_zero = false);
// Decades (1, 10, 100, ...) covering [min, max], min > 0 (InputError otherwise).
Ticks LogTicks(double min, double max);

class Scale {
 public:
  static Scale Linear(double d0, double d1, double r0, double r1);
  static Scale Log(double d0, double d1, double r0, double r1);  // d0, d1 > 0
  double operator()(double v) const;                             // clamps to the range for values outside the domain
  double d0() const { return d0_; }
  double d1() const { return d1_; }

 private:
  bool log_ = false;
  double d0_ = 0, d1_ = 1, r0_ = 0, r1_ = 1;
};

// Throws InputError "chart 'what': series 'series' has a NaN/infinite value at index i" when a
// value is not finite.
void CheckFinite(const std::vector<double>& values, const std::string& what, const std::string& series);

// A number with an SI-style unit, short for axis labels and tooltips: 1.25 GB, 340 ms, 2.1 h.
// `unit` is one of "s", "B", "B/s", "FLOP/s", "fraction" (as %), "" (plain, k/M/G suffixes).
std::string FormatValue(double v, const std::string& unit);

}  // namespace paratune
