#include "scheduling/topo_policy.h"

#include <cmath>
#include <map>

namespace paratune {

std::optional<Placement> TopoPolicy::Packed(const ClusterState& state, const Job& j,
                                            const std::vector<char>* excluded) {
  for (int t : state.TypesFor(j.gpu_type)) {
    if (auto p = state.BestFit(t, j.gpus, excluded)) return p;
  }
  return std::nullopt;
}

namespace {
int MaxGpusPerNode(const Scheduler& s, const Job& j) {
  int g = 0;
  for (int t : s.state().TypesFor(j.gpu_type)) g = std::max(g, s.topology().types[t].fabric.gpus_per_node);
  return g;
}

// A soft-locality job that has waited locality_wait_s: a placement split over nodes that ends
// before `finish_s` (the reservation's finish), if there is one; one that has waited less wakes
// the scheduler when it has waited enough.
std::optional<Placement> SoftSplit(Scheduler& s, int64_t id, double finish_s) {
  const Job& j = s.job(id);
  const double wait = s.options().locality_wait_s;
  if (s.waited_s(id) >= wait) {
    std::optional<Placement> split;
    for (int t : s.state().TypesFor(j.gpu_type)) {
      split = s.state().SplitFit(t, j.gpus);
      if (split) break;
    }
    // A job that fits one node splits only when the cost model prices the split: without a
    // model the cost of running its ranks over the network is unknown, so it waits.
    const bool one_node = j.gpus <= MaxGpusPerNode(s, j);
    if (split && (!one_node || s.Modelled(id, *split)) && s.now() + s.RunTime(id, *split) < finish_s) return split;
  } else {
    s.WakeAt(s.now() - s.waited_s(id) + wait);
  }
  return std::nullopt;
}
}  // namespace

const TopoPolicy::Reservation& TopoPolicy::Reserve(Scheduler& s, int64_t head) {
  if (res_.head == head && res_.disruptions == s.disruptions()) return res_;
  res_ = Reservation{};
  res_.head = head;
  res_.disruptions = s.disruptions();
  res_.shadow_s = INFINITY;
  res_.finish_s = INFINITY;
  res_.nodes.assign(s.topology().nodes.size(), 0);
  ClusterState future = s.state();
  const Job& j = s.job(head);
  for (const auto& [end_s, id] : s.running_by_end()) {
    future.Release(s.running().at(id).placement);
    if (auto p = Packed(future, j)) {
      res_.shadow_s = end_s;
      res_.finish_s = end_s + s.RunTime(head, *p);
      for (const auto& share : p->shares) res_.nodes[share.node] = 1;
      break;
    }
  }
  return res_;
}

void TopoPolicy::Schedule(Scheduler& s) {
  const auto& pending = s.pending();
  auto it = pending.begin();
  int64_t head = -1;
  while (it != pending.end()) {
    const int64_t id = QueuedJob(*it);
    const Job& j = s.job(id);
    if (auto p = Packed(s.state(), j)) {
      ++it;
      s.Start(id, *p);
      continue;
    }
    if (TryPreempt(s, id) || TryConsolidate(s, id)) {
      it = pending.begin();
      continue;
    }
    const Reservation& r = Reserve(s, id);
    if (j.locality == Locality::kSoft) {
      if (auto split = SoftSplit(s, id, r.finish_s)) {
        ++it;
        s.Start(id, *split);
        continue;
      }
    }
    head = id;
    break;
  }
  if (head < 0) return;
  // EASY backfill behind the blocked head.
  const Reservation& r = Reserve(s, head);
  ++it;
  int tried = 0;
  // The smallest job (of any GPU type) that found no place outside the reservation, and no
  // place at all: a job at least as large cannot fit either.
  int failed_outside = INT32_MAX, failed_anywhere = INT32_MAX;
  while (it != pending.end() && tried < s.options().backfill_depth) {
    const int64_t id = QueuedJob(*it);
    ++it;
    ++tried;
    const Job& j = s.job(id);
    const bool prunable = j.gpu_type.empty();
    if (prunable && j.gpus >= failed_outside && j.gpus >= failed_anywhere) continue;
    std::optional<Placement> p;
    if (!prunable || j.gpus < failed_outside) {
      p = Packed(s.state(), j, &r.nodes);
      if (!p && prunable) failed_outside = j.gpus;
    }
    if (!p && (!prunable || j.gpus < failed_anywhere)) {
      p = Packed(s.state(), j);
      if (!p && prunable) failed_anywhere = j.gpus;
      if (p && s.now() + s.RunTime(id, *p) > r.shadow_s) p.reset();
    }
    if (p) s.Start(id, *p);
  }
}

std::unique_ptr<Policy> MakeTopoPolicy() { return std::make_unique<TopoPolicy>(); }

}  // namespace paratune
