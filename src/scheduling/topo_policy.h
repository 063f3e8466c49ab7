// TopoPolicy: topology-aware best fit with EASY backfill, the base of the preempting and
// consolidating policies. The head of the queue starts on the packed placement with the fewest
// nodes, domains and leaves (ClusterState::BestFit); when it does not fit it gets a reservation:
// the earliest time at which enough running jobs have ended for a packed placement, and the
// nodes of that placement (the "shadow time" of EASY backfill: Mu'alem & Feitelson, "Utilization,
// Predictability, Workloads, and User Runtime Estimates in Scheduling the IBM SP2 with
// Backfilling", IEEE TPDS 12(6), 2001, Section 2). Jobs behind it start now when they fit
// outside the reserved nodes, or anywhere if they end before the shadow time, so the head is
// never delayed. A soft-locality head that has waited ReplayOptions::locality_wait_s takes a
// split placement when that finishes sooner than waiting for its reservation; a job that fits
// one node does so only when the cost model prices the split (it carries a model), since
// otherwise the cost of running its ranks over the network is unknown.
#pragma once

#include <optional>
#include <vector>

#include "scheduling/policy.h"

namespace paratune {

class TopoPolicy : public Policy {
 public:
  void Schedule(Scheduler& s) override;

 protected:
  // Hooks of the derived policies, tried in this order for a head that does not fit; each
  // returns true when it started the head.
  virtual bool TryPreempt(Scheduler&, int64_t) { return false; }
  virtual bool TryConsolidate(Scheduler&, int64_t) { return false; }

  // The packed placement of a job on the types it may use (first type that has one).
  static std::optional<Placement> Packed(const ClusterState& state, const Job& j,
                                         const std::vector<char>* excluded = nullptr);

 private:
  struct Reservation {
    int64_t head = -1;
    int64_t disruptions = -1;
    double shadow_s = 0;      // when the head can start packed
    double finish_s = 0;      // when it would end, started then
    std::vector<char> nodes;  // the reserved nodes
  };
  const Reservation& Reserve(Scheduler& s, int64_t head);
  Reservation res_;
};

}  // namespace paratune
