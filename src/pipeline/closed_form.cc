#include "pipeline/closed_form.h"

#include <algorithm>
#include <numeric>

namespace paratune {

PipelineTime ClosedFormPipeline(const std::vector<double>& rank_s, int64_t m, int vp) {
  PipelineTime p;
  if (rank_s.empty() || m <= 0) return p;
  const double t_max = *std::max_element(rank_s.begin(), rank_s.end());
  const double sum = std::accumulate(rank_s.begin(), rank_s.end(), 0.0);
  p.ideal_s = static_cast<double>(m) * t_max;
  p.bubble_s = rank_s.size() > 1 ? (sum - t_max) / std::max(1, vp) : 0;
  return p;
}

double BubbleOverIdeal(int pp, int vp, int64_t m) {
  return static_cast<double>(pp - 1) / (static_cast<double>(vp) * static_cast<double>(m));
}

}  // namespace paratune
