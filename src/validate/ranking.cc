#include "validate/ranking.h"

#include <algorithm>
#include <cmath>

namespace paratune {
namespace {

bool SameLayout(const PublishedRun& a, const PublishedRun& b) {
  const Layout &x = a.layout, &y = b.layout;
  return x.tp == y.tp && x.pp == y.pp && x.vp == y.vp && x.cp == y.cp && x.ep == y.ep && x.zero == y.zero &&
         x.mbs == y.mbs && x.recompute == y.recompute && x.sequence_parallel() == y.sequence_parallel() &&
         a.training.precision == b.training.precision;
}

}  // namespace

bool RankingPair(const PublishedRun& a, const PublishedRun& b, double threshold) {
  if (a.model_name != b.model_name || a.gpu_name != b.gpu_name || a.num_gpus != b.num_gpus ||
      a.training.seq != b.training.seq || SameLayout(a, b))
    return false;
  const double ma = a.target_tokens_per_s_per_gpu, mb = b.target_tokens_per_s_per_gpu;
  return std::abs(ma - mb) / std::min(ma, mb) > threshold;
}

PairOrder OrderPairs(const std::vector<const PublishedRun*>& runs, const std::vector<double>& predicted,
                     double threshold) {
  PairOrder out;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (predicted[i] < 0) continue;
    for (size_t j = i + 1; j < runs.size(); ++j) {
      if (predicted[j] < 0 || !RankingPair(*runs[i], *runs[j], threshold)) continue;
      const bool measured_i_faster = runs[i]->target_tokens_per_s_per_gpu > runs[j]->target_tokens_per_s_per_gpu;
      const bool predicted_i_faster = predicted[i] > predicted[j];
      ++out.pairs;
      if (measured_i_faster == predicted_i_faster)
        ++out.agree;
      else
        out.disagreements.push_back(measured_i_faster ? std::pair{i, j} : std::pair{j, i});
    }
  }
  return out;
}

}  // namespace paratune
