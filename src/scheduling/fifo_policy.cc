// FIFO first fit, the baseline: jobs start in submit order, each on the first free GPUs in node
// order wherever they are, and a job that does not fit blocks every job behind it (no
// backfill). It ignores topology and locality, as a plain GPU-count scheduler does, so it is
// the placement that splits jobs across nodes.
#include "scheduling/policy.h"

namespace paratune {

namespace {

class FifoPolicy : public Policy {
 public:
  void Schedule(Scheduler& s) override {
    while (!s.pending().empty()) {
      const int64_t id = QueuedJob(*s.pending().begin());
      const Job& j = s.job(id);
      std::optional<Placement> p;
      for (int t : s.state().TypesFor(j.gpu_type)) {
        p = s.state().FirstFit(t, j.gpus);
        if (p) break;
      }
      if (!p) return;
      s.Start(id, *p);
    }
  }
};

}  // namespace

std::unique_ptr<Policy> MakeFifoPolicy() { return std::make_unique<FifoPolicy>(); }

}  // namespace paratune
