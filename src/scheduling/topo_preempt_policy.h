// TopoPreemptPolicy: topo (best fit, EASY backfill) with production jobs first in the queue and
// allowed to preempt experimental ones. A production head that does not fit evicts whole
// experimental jobs (gang preemption: every GPU of a victim is freed) that have run at least
// ReplayOptions::min_run_s, choosing the set that frees a packed placement for it and loses the
// least work (GPU-seconds since each victim's last checkpoint). A victim goes back to the queue
// and resumes later from its last checkpoint, paying its restart overhead.
#pragma once

#include <functional>
#include <vector>

#include "scheduling/topo_policy.h"

namespace paratune {

class TopoPreemptPolicy : public TopoPolicy {
 public:
  bool by_class() const override { return true; }
  // Whether a running job may be a victim.
  using MayGo = std::function<bool(int64_t)>;

 protected:
  bool TryPreempt(Scheduler& s, int64_t head) override;

  // The cheapest victims among the running jobs `may_go` accepts that free a packed placement for
  // `head` (empty: none do).
  static std::vector<int64_t> ChooseVictims(const Scheduler& s, int64_t head, const MayGo& may_go);
};

}  // namespace paratune
