// Small text helpers shared by the readers and catalogs: trimming blanks around a field, ASCII
// lower-casing (locale-independent, so "I" is "i" whatever the C locale), a value as an error
// message shows it, and number fields read under one rule. One definition each; a reader with a
// format-specific notion of whitespace (JSON's) keeps its own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace paratune {

// `s` without leading and trailing spaces, tabs and carriage returns (what a CSV cell, a log
// line or a key = value field carries around its text).
std::string_view TrimBlanks(std::string_view s);

// `s` with A-Z mapped to a-z and every other byte as it is.
std::string AsciiLower(std::string_view s);

// `s` with a-z mapped to A-Z and every other byte as it is.
std::string AsciiUpper(std::string_view s);

// `a` and `b` equal but for the case of A-Z.
bool EqualsAsciiNoCase(std::string_view a, std::string_view b);

// A value as an error message shows it: at most 40 bytes, every byte outside printable ASCII
// as '?', "..." when cut. One line of bounded length whatever the input.
std::string Shown(std::string_view s);

// Shown(s) in single quotes: 'value'.
std::string Quote(std::string_view s);

// What reading a number field found. The one rule for every reader: the whole text is the
// number (nothing around it), and a value is never clamped, wrapped or rounded to a substitute.
enum class NumberParse {
  kOk,
  kNotANumber,  // empty, text around the digits, hexadecimal, a '+' sign
  kOutOfRange,  // beyond the type's range, or a nonzero decimal that rounds to zero (1e-400)
  kNotFinite,   // inf, infinity or nan (any case, with or without '-'): a spelling, not a measurement
};

// The whole of `s` as a decimal number: an optional '-', digits with an optional point and
// exponent (std::from_chars' form). A format that allows a leading '+' (Prometheus, pandas CSV)
// drops it before the call, as the format's own rule.
NumberParse ParseNumber(std::string_view s, double* out);

// The whole of `s` as a decimal integer with an optional '-'; beyond int64_t is kOutOfRange.
NumberParse ParseInteger(std::string_view s, int64_t* out);

}  // namespace paratune
