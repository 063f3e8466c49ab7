// EditDistance: the Levenshtein distance between two words (insertions, deletions and
// substitutions of one byte each), for "did you mean" suggestions.
#pragma once

#include <cstddef>
#include <string_view>

namespace paratune {

size_t EditDistance(std::string_view a, std::string_view b);

// EditDistance when it is at most `limit`, else limit + 1: a band of 2 limit + 1 diagonals
// (Ukkonen 1985, "Algorithms for approximate string matching"), O(limit x length).
size_t EditDistanceWithin(std::string_view a, std::string_view b, size_t limit);

// Whether `typed` is close enough to `known` to be a misspelling of it: at most 2 edits, or a
// third of the longer word's length for long words.
bool LooksLikeMisspelling(std::string_view typed, std::string_view known);

}  // namespace paratune
