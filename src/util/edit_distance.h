// EditDistance: the Levenshtein distance between two words (insertions, deletions and
// substitutions of one byte each), for "did you mean" suggestions.
#pragma once

#include <cstddef>
#include <string_view>

namespace paratune {

size_t EditDistance(std::string_view a, std::string_view b);

// Whether `typed` is close enough to `known` to be a misspelling of it: at most 2 edits, or a
// third of the longer word's length for long words.
bool LooksLikeMisspelling(std::string_view typed, std::string_view known);

}  // namespace paratune
