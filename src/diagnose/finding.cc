#include "diagnose/finding.h"

#include <algorithm>

namespace paratune {

void RankFindings(std::vector<Finding>* findings) {
  std::stable_sort(findings->begin(), findings->end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return static_cast<int>(a.severity) < static_cast<int>(b.severity);
    if (a.loss_fraction != b.loss_fraction) return a.loss_fraction > b.loss_fraction;
    return a.rule < b.rule;
  });
}

}  // namespace paratune
