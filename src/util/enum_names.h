// EnumNames: the one table of an enum's values and their names, from which its name function,
// its parser (with the "expected a, b or c" error) and every listing in help texts are derived,
// so that a new value is added in one place. Declared as
//   inline constexpr EnumNames<Precision, 5> kPrecisionNames{{{{Precision::kBf16, "bf16"}, ...}}, 4};
// where the last number counts the canonical names; later entries are accepted aliases.
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>

#include "util/error.h"
#include "util/text.h"

namespace paratune {

template <class E, size_t N>
struct EnumNames {
  // {value, canonical name}; aliases (accepted when parsing, never printed) follow the canonical
  // entries and repeat a value.
  std::array<std::pair<E, const char*>, N> entries;
  size_t canonical = N;  // entries [0, canonical) are printed; the rest are aliases

  const char* Name(E e) const {
    for (const auto& [v, n] : entries)
      if (v == e) return n;
    return "?";
  }

  // "a, b or c" over the canonical names.
  std::string List(std::string_view last_sep = " or ") const {
    std::string s;
    for (size_t i = 0; i < canonical; ++i) {
      if (i > 0) s += i + 1 == canonical ? std::string(last_sep) : std::string(", ");
      s += entries[i].second;
    }
    return s;
  }

  // Case-insensitive. Throws InputError("WHERE: unknown WHAT 'S' (expected a, b or c)").
  E Parse(std::string_view s, const std::string& where, const char* what) const {
    for (const auto& [v, n] : entries)
      if (EqualsAsciiNoCase(s, n)) return v;
    throw InputError(where + ": unknown " + what + " " + Quote(s) + " (expected " + List() + ")");
  }
};

}  // namespace paratune
