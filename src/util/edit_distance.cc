#include "util/edit_distance.h"

#include <algorithm>
#include <vector>

namespace paratune {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

size_t EditDistanceWithin(std::string_view a, std::string_view b, size_t limit) {
  const size_t n = a.size(), m = b.size();
  if ((n > m ? n - m : m - n) > limit) return limit + 1;
  const size_t kOut = limit + 1;
  std::vector<size_t> row(m + 1, kOut);
  for (size_t j = 0; j <= std::min(m, limit); ++j) row[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    const size_t lo = i > limit ? i - limit : 1, hi = std::min(m, i + limit);
    size_t diag = row[lo - 1];            // row[i-1][lo-1]
    row[lo - 1] = i <= limit ? i : kOut;  // row[i][lo-1]: outside the band beyond the first column
    size_t best = row[lo - 1];
    for (size_t j = lo; j <= hi; ++j) {
      const size_t up = row[j];
      const size_t v = std::min({up + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      row[j] = std::min(v, kOut);
      diag = up;
      best = std::min(best, row[j]);
    }
    if (hi < m) row[hi + 1] = kOut;
    if (best > limit) return kOut;
  }
  return std::min(row[m], kOut);
}

bool LooksLikeMisspelling(std::string_view typed, std::string_view known) {
  const size_t limit = std::max<size_t>(2, std::max(typed.size(), known.size()) / 12);
  return typed != known && EditDistanceWithin(typed, known, limit) <= limit;
}

}  // namespace paratune
