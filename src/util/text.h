// Small text helpers shared by the readers and catalogs: trimming blanks around a field and
// ASCII lower-casing (locale-independent, so "I" is "i" whatever the C locale). One definition
// each; a reader with a format-specific notion of whitespace (JSON's) keeps its own.
#pragma once

#include <string>
#include <string_view>

namespace paratune {

// `s` without leading and trailing spaces, tabs and carriage returns (what a CSV cell, a log
// line or a key = value field carries around its text).
std::string_view TrimBlanks(std::string_view s);

// `s` with A-Z mapped to a-z and every other byte as it is.
std::string AsciiLower(std::string_view s);

// `a` and `b` equal but for the case of A-Z.
bool EqualsAsciiNoCase(std::string_view a, std::string_view b);

}  // namespace paratune
