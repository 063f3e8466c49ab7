#include "scheduling/cluster_state.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <tuple>

#include "util/text.h"

namespace paratune {

ClusterState::ClusterState(const ClusterTopology& topology) : topology_(&topology) {
  all_types_ = ComputeTypesFor("");
  const int n = static_cast<int>(topology.nodes.size());
  free_.resize(n);
  free_by_type_.assign(topology.types.size(), 0);
  by_free_.resize(topology.types.size());
  for (size_t t = 0; t < topology.types.size(); ++t) by_free_[t].resize(topology.types[t].fabric.gpus_per_node + 1);
  leaf_whole_free_.assign(topology.leaves, 0);
  domain_whole_free_.assign(topology.domains, 0);
  domain_free_.assign(topology.domains, 0);
  domain_gpus_.assign(topology.domains, 0);
  type_leaves_.resize(topology.types.size());
  leaf_nodes_.resize(topology.leaves);
  domain_nodes_.resize(topology.domains);
  for (int i = 0; i < n; ++i) {
    const ClusterNode& node = topology.nodes[i];
    const int g = topology.types[node.type].fabric.gpus_per_node;
    free_[i] = g;
    free_total_ += g;
    free_by_type_[node.type] += g;
    by_free_[node.type][g].insert(i);
    ++leaf_whole_free_[node.leaf];
    ++domain_whole_free_[node.domain];
    domain_free_[node.domain] += g;
    domain_gpus_[node.domain] += g;
    if (type_leaves_[node.type].empty() || type_leaves_[node.type].back() != node.leaf)
      type_leaves_[node.type].push_back(node.leaf);
    leaf_nodes_[node.leaf].push_back(i);
    domain_nodes_[node.domain].push_back(i);
  }
}

void ClusterState::Move(int node, int old_free, int new_free) {
  const ClusterNode& n = topology_->nodes[node];
  const int g = topology_->types[n.type].fabric.gpus_per_node;
  by_free_[n.type][old_free].erase(node);
  by_free_[n.type][new_free].insert(node);
  const bool was_partial = old_free > 0 && old_free<g, is_partial = new_free> 0 && new_free < g;
  partial_nodes_ += static_cast<int>(is_partial) - static_cast<int>(was_partial);
  if (old_free == g) --leaf_whole_free_[n.leaf], --domain_whole_free_[n.domain];
  if (new_free == g) ++leaf_whole_free_[n.leaf], ++domain_whole_free_[n.domain];
  const int dg = domain_gpus_[n.domain];
  const int df_old = domain_free_[n.domain], df_new = df_old + new_free - old_free;
  const bool dwas = df_old > 0 && df_old<dg, dis = df_new> 0 && df_new < dg;
  partial_domains_ += static_cast<int>(dis) - static_cast<int>(dwas);
  domain_free_[n.domain] = df_new;
  free_total_ += new_free - old_free;
  free_by_type_[n.type] += new_free - old_free;
  free_[node] = new_free;
}

void ClusterState::Take(const Placement& p) {
  for (const auto& s : p.shares) Move(s.node, free_[s.node], free_[s.node] - s.gpus);
}

void ClusterState::Release(const Placement& p) {
  for (const auto& s : p.shares) Move(s.node, free_[s.node], free_[s.node] + s.gpus);
}

int ClusterState::FreeBelow(int type, int gpus) const {
  int below = 0;
  const auto& buckets = by_free_[type];
  for (int k = 1; k < static_cast<int>(buckets.size()) && k < gpus; ++k)
    below += k * static_cast<int>(buckets[k].size());
  return below;
}

const std::vector<int>& ClusterState::TypesFor(const std::string& gpu_type) const {
  if (gpu_type.empty()) return all_types_;
  auto known = types_for_.find(gpu_type);
  if (known == types_for_.end()) known = types_for_.emplace(gpu_type, ComputeTypesFor(gpu_type)).first;
  return known->second;
}

std::vector<int> ClusterState::ComputeTypesFor(const std::string& gpu_type) const {
  // `gpu_type` may list alternatives separated by '|' (the Alibaba trace's gpu_spec).
  const auto same = EqualsAsciiNoCase;
  std::vector<int> out;
  for (int t = 0; t < static_cast<int>(topology_->types.size()); ++t) {
    if (gpu_type.empty()) {
      out.push_back(t);
      continue;
    }
    std::string_view rest = gpu_type;
    while (true) {
      const size_t bar = rest.find('|');
      if (same(rest.substr(0, bar), topology_->types[t].gpu)) {
        out.push_back(t);
        break;
      }
      if (bar == std::string_view::npos) break;
      rest.remove_prefix(bar + 1);
    }
  }
  return out;
}

std::optional<Placement> ClusterState::FirstFit(int type, int gpus) const {
  if (free_by_type_[type] < gpus) return std::nullopt;
  Placement p;
  int need = gpus;
  for (int i = 0; i < static_cast<int>(free_.size()) && need > 0; ++i) {
    if (topology_->nodes[i].type != type || free_[i] == 0) continue;
    const int take = std::min(need, free_[i]);
    p.shares.push_back({i, take});
    need -= take;
  }
  return p;
}

namespace {
bool Excluded(const std::vector<char>* excluded, int node) { return excluded && (*excluded)[node]; }

// For a job of `gpus` GPUs on one node of type ty (by_free: the type's nodes by free GPUs): the
// node with the fewest free GPUs that holds the job; among those, the fullest NVLink domain
// (multi-node domains), then the leaf with the fewest wholly free nodes, then the lowest index:
// keeps whole nodes, domains and leaves free for the jobs that need them. -1 when none holds it.
int FewestFreeNode(const ClusterTopology& topology, const NodeType& ty, const std::vector<std::set<int>>& by_free,
                   const std::vector<int>& domain_free, const std::vector<int>& leaf_whole_free, int gpus,
                   const std::vector<char>* excluded) {
  for (int k = gpus; k <= ty.fabric.gpus_per_node; ++k) {
    int best = -1;
    std::tuple<int, int, int> best_key{0, 0, 0};
    for (int node : by_free[k]) {
      if (Excluded(excluded, node)) continue;
      const ClusterNode& n = topology.nodes[node];
      std::tuple<int, int, int> key{ty.nodes_per_domain() > 1 ? domain_free[n.domain] : 0, leaf_whole_free[n.leaf],
                                    node};
      if (best < 0 || key < best_key) best = node, best_key = key;
    }
    if (best >= 0) return best;
  }
  return -1;
}

// The wholly free nodes (all g GPUs free) among `nodes`, the excluded ones left out.
int WholeFreeIn(const std::vector<int>& nodes, const std::vector<int>& free, int g, const std::vector<char>* excluded) {
  int c = 0;
  for (int node : nodes)
    if (free[node] == g && !Excluded(excluded, node)) ++c;
  return c;
}

// Takes `full` whole nodes and the remainder from `nodes` (one domain or one leaf); the
// remainder goes to the partly free node that fits it best, else to one more whole node.
std::optional<Placement> TakeFrom(const std::vector<int>& nodes, const std::vector<int>& free, int g, int full, int rem,
                                  const std::vector<char>* excluded) {
  Placement p;
  int taken = 0;
  int rem_node = -1;
  if (rem > 0) {
    for (int node : nodes) {
      if (Excluded(excluded, node) || free[node] < rem || free[node] == g) continue;
      if (rem_node < 0 || free[node] < free[rem_node]) rem_node = node;
    }
  }
  for (int node : nodes) {
    if (taken == full && (rem == 0 || rem_node >= 0)) break;
    if (Excluded(excluded, node) || free[node] != g) continue;
    if (taken < full) {
      p.shares.push_back({node, g});
      ++taken;
    } else if (rem > 0 && rem_node < 0) {
      rem_node = node;
    }
  }
  if (taken < full || (rem > 0 && rem_node < 0)) return std::nullopt;
  if (rem > 0) p.shares.push_back({rem_node, rem});
  std::sort(p.shares.begin(), p.shares.end(), [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
  return p;
}
}  // namespace

std::optional<Placement> ClusterState::BestFit(int type, int gpus, const std::vector<char>* excluded) const {
  const NodeType& ty = topology_->types[type];
  const int g = ty.fabric.gpus_per_node;
  if (gpus <= 0 || free_by_type_[type] < gpus) return std::nullopt;
  if (gpus <= g) {
    // The best-fitting node (FewestFreeNode).
    const int best = FewestFreeNode(*topology_, ty, by_free_[type], domain_free_, leaf_whole_free_, gpus, excluded);
    if (best >= 0) return Placement{{{best, gpus}}};
    return std::nullopt;
  }
  // More than one node: `full` whole nodes and a remainder on one more node.
  const int full = gpus / g, rem = gpus % g, nodes_needed = full + (rem > 0 ? 1 : 0);
  auto whole_free_in = [&](const std::vector<int>& nodes) { return WholeFreeIn(nodes, free_, g, excluded); };
  auto take_from = [&](const std::vector<int>& nodes) { return TakeFrom(nodes, free_, g, full, rem, excluded); };
  const int domain_gpus = g * ty.nodes_per_domain();
  if (ty.nodes_per_domain() > 1 && gpus <= domain_gpus) {
    // Inside one NVLink domain: the domain with the fewest free GPUs that holds the job.
    int best = -1;
    for (int d = 0; d < topology_->domains; ++d) {
      if (domain_nodes_[d].empty() || topology_->nodes[domain_nodes_[d].front()].type != type) continue;
      if (domain_free_[d] < gpus) continue;
      const int wf = excluded ? whole_free_in(domain_nodes_[d]) : domain_whole_free_[d];
      if (wf < full) continue;
      if (best >= 0 && domain_free_[d] >= domain_free_[best]) continue;
      if (take_from(domain_nodes_[d])) best = d;
    }
    if (best >= 0) return take_from(domain_nodes_[best]);
    return std::nullopt;
  }
  // One leaf when the job fits under one: the leaf with the fewest wholly free nodes that
  // holds it (best fit).
  const auto& leaves = type_leaves_[type];
  const int leaf_nodes =
      ty.fabric.nodes_per_leaf > 0 ? std::max(ty.fabric.nodes_per_leaf, ty.nodes_per_domain()) : ty.count;
  if (nodes_needed <= leaf_nodes) {
    int best = -1, best_wf = 0;
    for (int leaf : leaves) {
      const int wf = excluded ? whole_free_in(leaf_nodes_[leaf]) : leaf_whole_free_[leaf];
      if (wf < full || (best >= 0 && wf >= best_wf)) continue;
      if (take_from(leaf_nodes_[leaf])) best = leaf, best_wf = wf;
    }
    if (best >= 0) return take_from(leaf_nodes_[best]);
    return std::nullopt;
  }
  // Bigger than a leaf: whole nodes from the leaves with the most wholly free nodes (fewest
  // leaves), the remainder on the best-fitting partly free node of those leaves.
  std::vector<std::pair<int, int>> order;  // (-whole free, leaf)
  for (int leaf : leaves)
    order.push_back({-(excluded ? whole_free_in(leaf_nodes_[leaf]) : leaf_whole_free_[leaf]), leaf});
  std::sort(order.begin(), order.end());
  std::vector<int> pool;
  int whole = 0;
  for (const auto& [neg_wf, leaf] : order) {
    if (whole >= nodes_needed) break;
    pool.insert(pool.end(), leaf_nodes_[leaf].begin(), leaf_nodes_[leaf].end());
    whole += -neg_wf;
  }
  std::sort(pool.begin(), pool.end());
  return take_from(pool);
}

std::optional<Placement> ClusterState::WholeNodesFit(int type, int gpus, const std::vector<char>* excluded) const {
  const int per = topology_->types[type].fabric.gpus_per_node;
  if (gpus <= per || whole_free_nodes(type) * per < gpus) return std::nullopt;
  auto p = SplitFit(type, gpus, excluded);
  if (p && static_cast<int>(p->shares.size()) * per < gpus + per) return p;  // ceil(gpus / per) nodes
  return std::nullopt;
}

std::optional<Placement> ClusterState::SplitFit(int type, int gpus, const std::vector<char>* excluded) const {
  if (gpus <= 0 || free_by_type_[type] < gpus) return std::nullopt;
  const int g = topology_->types[type].fabric.gpus_per_node;
  Placement p;
  int need = gpus;
  // Whole nodes first, from the leaves with the most of them, then the fullest-free nodes.
  std::vector<std::pair<int, int>> order;
  for (int leaf : type_leaves_[type]) order.push_back({-leaf_whole_free_[leaf], leaf});
  std::sort(order.begin(), order.end());
  if (need >= g) {
    for (const auto& [neg, leaf] : order) {
      for (int node : leaf_nodes_[leaf]) {
        if (need < g) break;
        if (free_[node] == g && !Excluded(excluded, node)) {
          p.shares.push_back({node, g});
          need -= g;
        }
      }
      if (need < g) break;
    }
  }
  for (int k = g; k >= 1 && need > 0; --k) {
    for (int node : by_free_[type][k]) {
      if (need == 0) break;
      if (Excluded(excluded, node)) continue;
      bool used = false;
      for (const auto& s : p.shares) used = used || s.node == node;
      if (used) continue;
      const int take = std::min(need, k);
      p.shares.push_back({node, take});
      need -= take;
    }
  }
  if (need > 0) return std::nullopt;
  std::sort(p.shares.begin(), p.shares.end(), [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
  return p;
}

}  // namespace paratune
