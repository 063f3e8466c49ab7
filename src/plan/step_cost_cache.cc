#include "plan/step_cost_cache.h"

namespace paratune {

const LayerCosts& StepCostCache::Layers(const Training& t, const Layout& l) {
  const std::array<int, 7> key{static_cast<int>(t.precision), l.tp, l.cp, l.ep, l.etp, l.mbs,
                               static_cast<int>(l.recompute)};
  auto it = layers_.find(key);
  if (it == layers_.end()) it = layers_.emplace(key, ComputeLayerCosts(m_, c_, t, l)).first;
  return it->second;
}

const StepCosts& StepCostCache::For(const Training& t, const Layout& l) {
  size_t i = 0;
  while (i < used_ && (zero_free_[i].recompute != l.recompute || zero_free_[i].mbs != l.mbs)) ++i;
  if (i == used_) {
    if (used_ == zero_free_.size()) zero_free_.emplace_back();
    ZeroFree& z = zero_free_[used_++];
    z.recompute = l.recompute;
    z.mbs = l.mbs;
    z.costs = ComputeZeroFreeStepCosts(m_, c_, t, l, &Layers(t, l));
  }
  costs_ = zero_free_[i].costs;  // reuses costs_'s buffers
  ApplyZeroStage(costs_, m_, c_, t, l, state_bytes_);
  return costs_;
}

}  // namespace paratune
