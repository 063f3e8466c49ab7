#include "util/text.h"

#include <charconv>
#include <cmath>

namespace paratune {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

}  // namespace

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

namespace {
char LowerByte(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = LowerByte(c);
  return out;
}

std::string AsciiUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

bool EqualsAsciiNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (LowerByte(a[i]) != LowerByte(b[i])) return false;
  return true;
}

std::string Shown(std::string_view s) {
  constexpr size_t kShownBytes = 40;
  std::string out;
  for (char c : s.substr(0, kShownBytes)) {
    const auto u = static_cast<unsigned char>(c);
    out += u >= 0x20 && u < 0x7f ? c : '?';
  }
  if (s.size() > kShownBytes) out += "...";
  return out;
}

std::string Quote(std::string_view s) { return "'" + Shown(s) + "'"; }

namespace {

// The one range rule: the whole text, and std::from_chars' ERANGE (beyond the type, or a
// nonzero decimal rounding to zero) as kOutOfRange; `out` is written only for kOk.
template <typename T>
NumberParse WholeNumber(std::string_view s, T* out) {
  if (s.empty()) return NumberParse::kNotANumber;
  T v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (p != s.data() + s.size()) return NumberParse::kNotANumber;
  if (ec == std::errc::result_out_of_range) return NumberParse::kOutOfRange;
  if (ec != std::errc()) return NumberParse::kNotANumber;
  *out = v;
  return NumberParse::kOk;
}

}  // namespace

NumberParse ParseNumber(std::string_view s, double* out) {
  double v = 0;
  const NumberParse p = WholeNumber(s, &v);  // from_chars reads inf, infinity and nan in any case
  if (p == NumberParse::kOk && !std::isfinite(v)) return NumberParse::kNotFinite;
  if (p == NumberParse::kOk) *out = v;
  return p;
}

NumberParse ParseInteger(std::string_view s, int64_t* out) { return WholeNumber(s, out); }

}  // namespace paratune
