// Scales, nice ticks and value formats of the report's charts (scale.h).
//
// Nice ticks: Heckbert, "Nice Numbers for Graph Labels", Graphics Gems (1990), pp. 61-63, the
// "loose labelling" algorithm: the range is rounded up to a nice number (1, 2, 5 x 10^k), the
// tick spacing is the nice number nearest range / (target - 1), and the domain is widened to
// multiples of the spacing. Log axes use whole decades (docs/report-charts.md). Duration axes
// choose among whole seconds, minutes, hours and days the step whose interval count is nearest
// the target, Heckbert's criterion over the clock's nice numbers (the 1, 2, 5 of a decimal axis
// become 1, 2, 5, 10, 15, 30 on a base-60 one, 1, 2, 3, 6, 12 on the 24 hours of a day, 1, 2, 7
// on a week).
#include "report/scale.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/svg.h"
#include "util/error.h"

namespace paratune {
namespace {

// 10^e, exact for the decades a double holds exactly (dividing for e < 0 keeps 10^-2 = 0.01 the
// nearest double, where multiplying by 0.1 twice does not).
double Pow10(int e) { return e >= 0 ? std::pow(10.0, e) : 1.0 / std::pow(10.0, -e); }

// floor(log10(x)) for x > 0, corrected where log10 rounds across a decade.
int FloorLog10(double x) {
  int e = static_cast<int>(std::floor(std::log10(x)));
  if (e < 308 && Pow10(e + 1) <= x) ++e;
  if (e > -308 && Pow10(e) > x) --e;
  return e;
}

// Heckbert's nicenum: a nice number near x (> 0), rounded or taken as the ceiling.
struct Nice {
  double value;
  int exponent;  // value = mantissa x 10^exponent, mantissa in {1, 2, 5, 10}
  double mantissa;
};
Nice NiceNum(double x, bool round) {
  const int e = FloorLog10(x);
  const double f = x / Pow10(e);
  double nf;
  if (round) {
    nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
  } else {
    nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  }
  const double value = e >= 0 ? nf * Pow10(e) : nf / Pow10(-e);
  return {value, e, nf};
}

// k x step, where step = mantissa x 10^exponent, computed so that 3 x 0.02 prints as 0.06.
double Multiple(double k, const Nice& step) {
  return step.exponent >= 0 ? k * step.mantissa * Pow10(step.exponent) : k * step.mantissa / Pow10(-step.exponent);
}

constexpr int kMaxTicks = 50;

// The data range as an axis takes it: finite (else InputError), ordered, and holding 0 when
// `include_zero`.
void NormaliseDomain(double& min, double& max, bool include_zero) {
  if (!std::isfinite(min) || !std::isfinite(max)) throw InputError("axis: the data range is not finite");
  if (min > max) std::swap(min, max);
  if (include_zero) {
    min = std::min(min, 0.0);
    max = std::max(max, 0.0);
  }
}

}  // namespace

Ticks NiceTicks(double min, double max, int target, bool include_zero) {
  NormaliseDomain(min, max, include_zero);
  if (min == max) {  // a single value: a domain around it
    if (min > 0) {
      min = 0;
      max = 2 * max;
    } else {
      min -= 1;
      max += 1;
    }
  }
  target = std::clamp(target, 2, kMaxTicks);
  // max - min overflows for a domain wider than DBL_MAX: then the spacing is taken from the
  // halves, which do not.
  double range = max - min;
  const bool overflow = !std::isfinite(range);
  Nice step = overflow ? NiceNum(max / (target - 1) - min / (target - 1), true)
                       : NiceNum(NiceNum(range, false).value / (target - 1), true);
  double kmin = std::floor(min / step.value), kmax = std::ceil(max / step.value);
  // A tiny range far from zero (1e15 .. 1e15 + 0.001) loses its spacing to rounding: then the
  // ticks are the ends only.
  Ticks t;
  if (!(kmax - kmin <= kMaxTicks) || Multiple(kmin, step) == Multiple(kmin + 1, step) ||
      !std::isfinite(Multiple(kmin, step)) || !std::isfinite(Multiple(kmax, step))) {
    t.lo = min;
    t.hi = max;
    t.step = max - min;
    t.values = {min, max};
    t.decimals = 6;
    return t;
  }
  t.step = step.value;
  t.decimals = std::max(-step.exponent, 0);
  t.lo = Multiple(kmin, step);
  t.hi = Multiple(kmax, step);
  for (double k = kmin; k <= kmax; ++k) {
    double v = Multiple(k, step);
    if (v == 0) v = 0;  // no -0
    t.values.push_back(v);
  }
  if (t.lo == 0) t.lo = 0;
  if (t.hi == 0) t.hi = 0;
  return t;
}

Ticks DurationTicks(double min, double max, int target, bool include_zero) {
  NormaliseDomain(min, max, include_zero);
  constexpr double kMinute = 60, kHour = 3600, kDay = 86400;
  const double span = max - min;
  if (!(span >= 10) || !std::isfinite(span)) return NiceTicks(min, max, target, include_zero);
  target = std::clamp(target, 1, kMaxTicks);
  struct Unit {
    double seconds;
    const char* name;
    std::vector<double> multiples;
  };
  static const Unit kUnits[] = {{1, "s", {1, 2, 5, 10, 15, 30}},
                                {kMinute, "min", {1, 2, 5, 10, 15, 30}},
                                {kHour, "h", {1, 2, 3, 6, 12}},
                                {kDay, "d", {1, 2, 7, 14, 28}}};
  double best_step = 0, best_unit = 1, best_err = 0;
  const char* best_name = "s";
  auto consider = [&](double step, const Unit& u) {
    const double intervals = std::ceil(max / step) - std::floor(min / step);
    const double err = std::fabs(intervals - target);
    if (best_step == 0 || err <= best_err) {  // ascending steps: a tie goes to the larger
      best_step = step;
      best_unit = u.seconds;
      best_name = u.name;
      best_err = err;
    }
    return intervals;
  };
  double intervals = 0;
  for (const Unit& u : kUnits)
    for (double m : u.multiples) intervals = consider(m * u.seconds, u);
  // Longer than the 28-day step covers: 50, 100, 200, 500, ... days, until one interval spans it.
  for (double decade = 10; intervals > 1 && decade < 1e300; decade *= 10)
    for (double m : {5.0, 10.0, 20.0}) intervals = consider(m * decade * kDay, kUnits[3]);
  // A span beyond any day step the loop reaches (~1e305 s): decimal ticks.
  if (best_err + target > kMaxTicks) return NiceTicks(min, max, target, include_zero);
  Ticks t;
  const double kmin = std::floor(min / best_step), kmax = std::ceil(max / best_step);
  t.step = best_step;
  t.lo = kmin * best_step;
  t.hi = kmax * best_step;
  t.decimals = 0;
  t.label_unit_s = best_unit;
  t.label_unit = best_name;
  for (double k = kmin; k <= kmax; ++k) {
    double v = k * best_step;
    if (v == 0) v = 0;  // no -0
    t.values.push_back(v);
  }
  if (t.lo == 0) t.lo = 0;
  return t;
}

Ticks AxisTicks(double min, double max, const std::string& unit, int target, bool include_zero) {
  return unit == "s" ? DurationTicks(min, max, target, include_zero) : NiceTicks(min, max, target, include_zero);
}

Ticks LogTicks(double min, double max) {
  if (!std::isfinite(min) || !std::isfinite(max)) throw InputError("log axis: the data range is not finite");
  if (min > max) std::swap(min, max);
  if (!(min > 0)) throw InputError("log axis: every value must be above 0 (got " + SvgValue(min) + ")");
  int e0 = FloorLog10(min);
  int e1 = FloorLog10(max);
  if (Pow10(e1) < max) ++e1;  // the decade at or above max
  if (e1 == e0) ++e1;         // a single decade value: one decade up
  // At most ~10 labelled decades: every k-th decade on a very wide axis.
  const int span = e1 - e0;
  const int every = std::max(1, (span + 9) / 10);
  e0 = e0 - ((e0 % every) + every) % every;  // align on multiples of `every`
  if ((e1 - e0) % every != 0) e1 += every - (e1 - e0) % every;
  Ticks t;
  t.lo = Pow10(e0);
  t.hi = Pow10(e1);
  t.step = 0;
  t.decimals = std::max(0, -e0);
  for (int e = e0; e <= e1; e += every) t.values.push_back(Pow10(e));
  return t;
}

Scale Scale::Linear(double d0, double d1, double r0, double r1) {
  Scale s;
  s.log_ = false;
  s.d0_ = d0;
  s.d1_ = d1;
  s.r0_ = r0;
  s.r1_ = r1;
  return s;
}

Scale Scale::Log(double d0, double d1, double r0, double r1) {
  if (!(d0 > 0) || !(d1 > 0)) throw InputError("log axis: the domain must be above 0");
  Scale s = Linear(d0, d1, r0, r1);
  s.log_ = true;
  return s;
}

double Scale::operator()(double v) const {
  double t;
  if (log_) {
    if (!(v > 0)) return r0_;
    const double l0 = std::log10(d0_), l1 = std::log10(d1_);
    t = l1 == l0 ? 0.5 : (std::log10(v) - l0) / (l1 - l0);
  } else {
    // Halves first, so a domain wider than DBL_MAX does not overflow.
    const double span = d1_ / 2 - d0_ / 2;
    t = span == 0 ? 0.5 : (v / 2 - d0_ / 2) / span;
  }
  if (!(t >= 0)) t = 0;  // also NaN
  if (t > 1) t = 1;
  return r0_ + t * (r1_ - r0_);
}

void CheckFinite(const std::vector<double>& values, const std::string& what, const std::string& series) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isfinite(values[i])) continue;
    throw InputError("chart '" + what + "': series '" + series + "' has " +
                     (std::isnan(values[i]) ? "a NaN" : "an infinite") + " value at index " + std::to_string(i));
  }
}

namespace {

// x with 3 significant digits, fixed, trailing zeros dropped: 1.25, 340, 0.0123.
std::string Sig3(double x) {
  if (x == 0) return "0";
  const int e = FloorLog10(std::fabs(x));
  return SvgNumber(x, std::max(0, 2 - e));
}

// x rounded to 3 significant digits (so that 999.7 counts as 1000 when choosing a prefix).
double Round3(double x) {
  if (x == 0) return 0;
  const int e = FloorLog10(std::fabs(x));
  const double q = Pow10(std::max(0, 2 - e));
  return e <= 2 ? std::round(x * q) / q : x;
}

// v with a decimal SI prefix (k, M, G, ... 1000 apart), mantissa in [1, 1000) after rounding.
// `spaced`: "1.25 GB" (unit symbols) or "1.25k" (plain numbers).
std::string WithPrefix(double v, const std::string& unit, bool spaced) {
  static const char* const kPrefixes[] = {"", "k", "M", "G", "T", "P", "E", "Z", "Y"};
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e27)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return std::string(buf) + (unit.empty() ? "" : " " + unit);
  }
  size_t p = 0;
  double m = v;
  while (p + 1 < std::size(kPrefixes) && std::fabs(Round3(m)) >= 1000) {
    m /= 1000;
    ++p;
  }
  std::string s = Sig3(m);
  if (spaced) return s + " " + kPrefixes[p] + unit;
  return s + kPrefixes[p] + (unit.empty() ? "" : " " + unit);
}

std::string Seconds(double v) {
  const double a = std::fabs(v);
  if (a == 0) return "0 s";
  struct U {
    double limit, scale;
    const char* name;
  };
  // ns below 1 µs, ... , minutes below an hour, hours below a day, then days.
  static const U kUnits[] = {{1e-6, 1e-9, "ns"}, {1e-3, 1e-6, "\xC2\xB5s"}, {1, 1e-3, "ms"},
                             {60, 1, "s"},       {3600, 60, "min"},         {86400, 3600, "h"}};
  for (const U& u : kUnits) {
    if (a < u.limit && std::fabs(Round3(v / u.scale)) * u.scale < u.limit) return Sig3(v / u.scale) + " " + u.name;
  }
  return Sig3(v / 86400) + " d";
}

}  // namespace

std::string FormatValue(double v, const std::string& unit) {
  if (std::isnan(v)) return "n/a";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (unit == "fraction") return Sig3(v * 100) + "%";
  if (unit == "s") return Seconds(v);
  if (unit == "B" || unit == "B/s" || unit == "FLOP/s" || unit == "FLOP") return WithPrefix(v, unit, true);
  return WithPrefix(v, unit, false);
}

}  // namespace paratune
