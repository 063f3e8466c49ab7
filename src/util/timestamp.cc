#include "util/timestamp.h"

#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace paratune {
namespace {

// Days since 1970-01-01 of a proleptic Gregorian date, and back: H. Hinnant, "chrono-Compatible
// Low-Level Date Algorithms", days_from_civil / civil_from_days
// (howardhinnant.github.io/date_algorithms.html).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, int64_t* m, int64_t* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp + (mp < 10 ? 3 : -9);
  *y = yoe + era * 400 + (*m <= 2);
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// Reads exactly `n` digits at text[*pos].
bool Digits(std::string_view text, size_t* pos, int n, int64_t* out) {
  if (*pos + n > text.size()) return false;
  int64_t v = 0;
  for (int i = 0; i < n; ++i) {
    const char c = text[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

}  // namespace

std::optional<double> ParseTimestamp(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  size_t p = 0;
  int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!Digits(text, &p, 4, &y)) return std::nullopt;
  if (p >= text.size() || (text[p] != '-' && text[p] != '/')) return std::nullopt;
  const char date_sep = text[p++];
  if (!Digits(text, &p, 2, &mo) || p >= text.size() || text[p++] != date_sep) return std::nullopt;
  if (!Digits(text, &p, 2, &d)) return std::nullopt;
  if (p >= text.size() || (text[p] != ' ' && text[p] != 'T')) return std::nullopt;
  ++p;
  if (!Digits(text, &p, 2, &h) || p >= text.size() || text[p++] != ':') return std::nullopt;
  if (!Digits(text, &p, 2, &mi) || p >= text.size() || text[p++] != ':') return std::nullopt;
  if (!Digits(text, &p, 2, &s)) return std::nullopt;
  double frac = 0;
  if (p < text.size() && (text[p] == '.' || text[p] == ',')) {
    ++p;
    double scale = 0.1;
    const size_t start = p;
    while (p < text.size() && text[p] >= '0' && text[p] <= '9' && p - start < 9) {
      frac += (text[p] - '0') * scale;
      scale /= 10;
      ++p;
    }
    if (p == start) return std::nullopt;
  }
  if (p != text.size()) return std::nullopt;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1) return std::nullopt;
  const int64_t month_days = kDays[mo - 1] + (mo == 2 && IsLeap(y) ? 1 : 0);
  if (d > month_days || h > 23 || mi > 59 || s > 60) return std::nullopt;
  const int64_t days = DaysFromCivil(y, mo, d);
  return static_cast<double>(days * 86400 + h * 3600 + mi * 60 + s) + frac;
}

std::string FormatTimestamp(double epoch_s) {
  if (!std::isfinite(epoch_s)) return "";
  const int64_t t = static_cast<int64_t>(std::floor(epoch_s));
  int64_t days = t / 86400, rem = t % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  int64_t y, m, d;
  CivilFromDays(days, &y, &m, &d);
  return fmt::format("{:04d}-{:02d}-{:02d} {:02d}:{:02d}:{:02d}", y, m, d, rem / 3600, rem % 3600 / 60, rem % 60);
}

}  // namespace paratune
