// StepCostCache: the stage costs (cost/stage_costs.h) the planner bounds its candidates with, each
// part computed once for the layouts that share it. The layer costs per (precision, tp, cp, ep,
// etp, micro-batch, recomputation), for the whole search; the ZeRO-free stage costs per
// (recomputation, micro-batch) of the current branch (precision, tp, pp, vp, split, cp, ep, etp),
// to which each ZeRO stage's memory and data-parallel terms are applied on a reused copy: the ZeRO
// stages of a layout share everything else. The same figures as ComputeStepCosts, but for the
// warnings, which the bounds do not read.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <vector>

#include "cost/memory.h"
#include "cost/stage_costs.h"
#include "hardware/cluster.h"
#include "layout/layout.h"
#include "model/model_spec.h"

namespace paratune {

class StepCostCache {
 public:
  StepCostCache(const ModelSpec& m, const ClusterSpec& c, const StateBytesPerParam& state_bytes)
      : m_(m), c_(c), state_bytes_(state_bytes) {}

  // Forgets the branch's ZeRO-free costs: a dimension other than the ZeRO stage, the
  // recomputation, the micro-batch and the schedule changed.
  void NewBranch() { used_ = 0; }

  // The stage costs of (t, l) but for their warnings; valid until the next call.
  const StepCosts& For(const Training& t, const Layout& l);

 private:
  const LayerCosts& Layers(const Training& t, const Layout& l);

  // The ZeRO-free stage costs of one (recomputation, micro-batch) of the branch.
  struct ZeroFree {
    Recompute recompute = Recompute::kNone;
    int mbs = 0;
    StepCosts costs;
  };

  const ModelSpec& m_;
  const ClusterSpec& c_;
  const StateBytesPerParam& state_bytes_;
  std::map<std::array<int, 7>, LayerCosts> layers_;
  std::vector<ZeroFree> zero_free_;  // the branch's are the first used_; the rest are kept for reuse
  size_t used_ = 0;
  StepCosts costs_;  // what For returned last
};

}  // namespace paratune
