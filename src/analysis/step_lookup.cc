#include "analysis/step_lookup.h"

#include <algorithm>

namespace paratune {

StepLookup::StepLookup(const std::vector<StepSpan>& spans) {
  for (const StepSpan& s : spans) cuts_.push_back(s.ts), cuts_.push_back(s.end);
  std::sort(cuts_.begin(), cuts_.end());
  cuts_.erase(std::unique(cuts_.begin(), cuts_.end()), cuts_.end());
  winner_.assign(cuts_.size(), -1);
  for (const StepSpan& s : spans) {
    const size_t from = std::lower_bound(cuts_.begin(), cuts_.end(), s.ts) - cuts_.begin();
    for (size_t i = from; i < cuts_.size() && cuts_[i] < s.end; ++i) winner_[i] = s.step;
  }
}

int64_t StepLookup::StepAt(int64_t ts) const {
  const auto it = std::upper_bound(cuts_.begin(), cuts_.end(), ts);
  return it == cuts_.begin() ? -1 : winner_[static_cast<size_t>(it - cuts_.begin()) - 1];
}

}  // namespace paratune
