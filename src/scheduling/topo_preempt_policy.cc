#include "scheduling/topo_preempt_policy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace paratune {

namespace {

// Running jobs on each node: (job, GPUs there).
using JobsOnNode = std::map<int, std::vector<std::pair<int64_t, int>>>;

// Victims for a job of one node of type t, into best (losing best_cost) when cheaper.
void ChooseOnOneNode(const Scheduler& s, const Job& j, int t, const TopoPreemptPolicy::MayGo& may_go,
                     JobsOnNode& on_node, double& best_cost, std::vector<int64_t>& best) {
  const ClusterTopology& topo = s.topology();
  const ClusterState& state = s.state();
  auto loss = [&](int64_t id) { return s.LossIfStopped(id); };
  // One node: on each node, evict the cheapest victims per GPU freed until the job fits.
  for (int node = 0; node < static_cast<int>(topo.nodes.size()); ++node) {
    if (topo.nodes[node].type != t) continue;
    int free = state.free(node);
    std::vector<std::tuple<double, int64_t, int>> cands;  // (loss per GPU, job, GPUs here)
    for (const auto& [id, gpus] : on_node[node])
      if (may_go(id)) cands.push_back({loss(id) / gpus, id, gpus});
    std::sort(cands.begin(), cands.end());
    std::vector<int64_t> victims;
    double cost = 0;
    for (const auto& [per_gpu, id, gpus] : cands) {
      if (free >= j.gpus) break;
      victims.push_back(id);
      cost += loss(id);
      free += gpus;
    }
    if (free < j.gpus || victims.empty()) continue;
    if (cost < best_cost || (cost == best_cost && victims.size() < best.size())) best_cost = cost, best = victims;
  }
}

// Victims for a job of several nodes of type t, into best (losing best_cost) when cheaper.
void ChooseWholeNodes(const Scheduler& s, const Job& j, int t, const TopoPreemptPolicy::MayGo& may_go,
                      JobsOnNode& on_node, double& best_cost, std::vector<int64_t>& best) {
  const ClusterTopology& topo = s.topology();
  const int g = topo.types[t].fabric.gpus_per_node;
  auto loss = [&](int64_t id) { return s.LossIfStopped(id); };
  // Several nodes: whole nodes, each emptied of its (all preemptible) jobs; the cheapest
  // nodes, inside one leaf when the job fits under one.
  const int need = (j.gpus + g - 1) / g;
  struct NodeCost {
    double cost;
    int leaf;
    int node;
  };
  std::vector<NodeCost> nodes;
  for (int node = 0; node < static_cast<int>(topo.nodes.size()); ++node) {
    if (topo.nodes[node].type != t) continue;
    double cost = 0;
    bool ok = true;
    for (const auto& [id, gpus] : on_node[node]) {
      if (!may_go(id)) ok = false;
      cost += loss(id);
    }
    if (ok) nodes.push_back({cost, topo.nodes[node].leaf, node});
  }
  const NodeType& ty = topo.types[t];
  const int leaf_nodes =
      ty.fabric.nodes_per_leaf > 0 ? std::max(ty.fabric.nodes_per_leaf, ty.nodes_per_domain()) : ty.count;
  std::vector<std::vector<NodeCost>> groups;
  if (need <= leaf_nodes) {
    std::map<int, std::vector<NodeCost>> by_leaf;
    for (const auto& n : nodes) by_leaf[n.leaf].push_back(n);
    for (auto& [leaf, v] : by_leaf) groups.push_back(std::move(v));
  } else {
    groups.push_back(nodes);
  }
  for (auto& group : groups) {
    if (static_cast<int>(group.size()) < need) continue;
    std::sort(group.begin(), group.end(),
              [](const NodeCost& a, const NodeCost& b) { return std::tie(a.cost, a.node) < std::tie(b.cost, b.node); });
    std::vector<int64_t> victims;
    for (int k = 0; k < need; ++k)
      for (const auto& [id, gpus] : on_node[group[k].node]) victims.push_back(id);
    std::sort(victims.begin(), victims.end());
    victims.erase(std::unique(victims.begin(), victims.end()), victims.end());
    if (victims.empty()) continue;
    double cost = 0;
    for (int64_t id : victims) cost += loss(id);
    if (cost < best_cost || (cost == best_cost && victims.size() < best.size())) best_cost = cost, best = victims;
  }
}

}  // namespace

std::vector<int64_t> TopoPreemptPolicy::ChooseVictims(const Scheduler& s, int64_t head, const MayGo& may_go) {
  const Job& j = s.job(head);
  const ClusterTopology& topo = s.topology();
  const ClusterState& state = s.state();
  // Running jobs on each node: (job, GPUs there), and whether every job on the node may go.
  JobsOnNode on_node;
  for (const auto& [id, r] : s.running())
    for (const auto& share : r.placement.shares) on_node[share.node].push_back({id, share.gpus});

  double best_cost = INFINITY;
  std::vector<int64_t> best;
  for (int t : state.TypesFor(j.gpu_type)) {
    if (j.gpus <= topo.types[t].fabric.gpus_per_node)
      ChooseOnOneNode(s, j, t, may_go, on_node, best_cost, best);
    else
      ChooseWholeNodes(s, j, t, may_go, on_node, best_cost, best);
  }
  if (best.empty()) return best;
  // Check on a copy that the head then fits packed.
  ClusterState after = state;
  for (int64_t id : best) after.Release(s.running().at(id).placement);
  if (!Packed(after, j)) return {};
  return best;
}

bool TopoPreemptPolicy::TryPreempt(Scheduler& s, int64_t head) {
  if (s.job(head).job_class != JobClass::kProduction) return false;
  const std::vector<int64_t> victims = ChooseVictims(s, head, [&s](int64_t id) { return s.Preemptible(id); });
  if (victims.empty()) return false;
  for (int64_t id : victims) s.Preempt(id);
  auto p = Packed(s.state(), s.job(head));
  if (!p) return false;  // cannot happen: checked in ChooseVictims
  s.Start(head, *p);
  return true;
}

std::unique_ptr<Policy> MakeTopoPreemptPolicy() { return std::make_unique<TopoPreemptPolicy>(); }

}  // namespace paratune
