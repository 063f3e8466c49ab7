// DefragPolicy: topo-preempt with a consolidation (defragmentation) pass. When the head of the
// queue fits within one node, enough GPUs of its type are free, but no node has enough of them
// (the free GPUs are fragmented), the pass empties one node by migrating its jobs (each on one
// node, experimental, past ReplayOptions::min_run_s) into the best-fitting holes of other nodes
// (checkpoint, stop, restart elsewhere: each move loses the work since its last checkpoint and
// pays the restart overhead), choosing the node whose moves lose the least work. The idea is
// the defragmentation of Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing
// Workloads with Fragmentation Gradient Descent", USENIX ATC 2023, applied by migration.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "scheduling/topo_preempt_policy.h"

namespace paratune {

namespace {

// Nodes tried per pass: the ones with the most free GPUs (bounded work per pass).
constexpr int kCandidateNodes = 16;

// Migrations: (job, its new placement).
using Moves = std::vector<std::pair<int64_t, Placement>>;

// The moves that empty `node` (of type t) into the best-fitting holes of other nodes and the work
// they lose; none when a job on it cannot move or the emptied node would not fit `need` GPUs.
// `jobs` are the single-node jobs on the node, as (job, GPUs).
std::optional<std::pair<double, Moves>> EmptyNode(const Scheduler& s, int t, int node, int need,
                                                  std::vector<std::pair<int64_t, int>> jobs) {
  const ClusterState& state = s.state();
  const ClusterTopology& topo = s.topology();
  const int g = topo.types[t].fabric.gpus_per_node;
  // Every GPU used on the node must belong to a movable single-node job.
  int movable_gpus = 0;
  bool ok = true;
  for (const auto& [id, gpus] : jobs) {
    if (!s.Preemptible(id)) ok = false;
    movable_gpus += gpus;
  }
  if (!ok || movable_gpus + state.free(node) != g) return std::nullopt;
  ClusterState after = state;
  std::vector<char> excluded(topo.nodes.size(), 0);
  excluded[node] = 1;
  std::sort(jobs.begin(), jobs.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  double cost = 0;
  Moves moves;
  for (const auto& [id, gpus] : jobs) after.Release(s.running().at(id).placement);
  for (const auto& [id, gpus] : jobs) {
    auto to = after.BestFit(t, gpus, &excluded);
    if (!to) return std::nullopt;
    after.Take(*to);
    moves.push_back({id, *to});
    cost += s.LossIfStopped(id);
  }
  if (moves.empty() || after.free(node) < need) return std::nullopt;
  return std::make_pair(cost, std::move(moves));
}

class DefragPolicy : public TopoPreemptPolicy {
 protected:
  bool TryConsolidate(Scheduler& s, int64_t head) override {
    const Job& j = s.job(head);
    const ClusterState& state = s.state();
    const ClusterTopology& topo = s.topology();
    // Once per head and state of the running set: the same failure would repeat.
    const auto key = std::make_pair(head, static_cast<int64_t>(s.running().size()) * 1'000'003 + s.disruptions());
    if (key == last_failed_) return false;
    std::map<int, std::vector<std::pair<int64_t, int>>> on_node;
    for (const auto& [id, r] : s.running())
      if (r.placement.shares.size() == 1)
        on_node[r.placement.shares[0].node].push_back({id, r.placement.shares[0].gpus});
    double best_cost = INFINITY;
    Moves best_moves;
    for (int t : state.TypesFor(j.gpu_type)) {
      const int g = topo.types[t].fabric.gpus_per_node;
      if (j.gpus > g || state.free_of_type(t) < j.gpus) continue;
      std::vector<std::pair<int, int>> cands;  // (-free, node)
      for (int node = 0; node < static_cast<int>(topo.nodes.size()); ++node)
        if (topo.nodes[node].type == t && state.free(node) > 0) cands.push_back({-state.free(node), node});
      std::sort(cands.begin(), cands.end());
      if (static_cast<int>(cands.size()) > kCandidateNodes) cands.resize(kCandidateNodes);
      for (const auto& [neg_free, node] : cands) {
        auto emptied = EmptyNode(s, t, node, j.gpus, on_node[node]);
        if (!emptied) continue;
        if (emptied->first < best_cost) best_cost = emptied->first, best_moves = std::move(emptied->second);
      }
    }
    if (best_moves.empty()) {
      last_failed_ = key;
      return false;
    }
    for (const auto& [id, to] : best_moves) s.Migrate(id, to);
    auto p = Packed(s.state(), j);
    if (!p) return false;
    s.Start(head, *p);
    return true;
  }

 private:
  std::pair<int64_t, int64_t> last_failed_{-1, -1};
};

}  // namespace

std::unique_ptr<Policy> MakeDefragPolicy() { return std::make_unique<DefragPolicy>(); }

}  // namespace paratune
