#include "scheduling/topology.h"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "util/error.h"

namespace paratune {

int NodeType::nodes_per_domain() const {
  if (fabric.gpus_per_node <= 0 || fabric.nvlink_domain <= fabric.gpus_per_node) return 1;
  return fabric.nvlink_domain / fabric.gpus_per_node;
}

namespace {

void CheckType(const NodeType& ty) {
  if (ty.count <= 0) throw InputError(fmt::format("cluster: node type {}: count must be positive", ty.name));
  const Fabric& f = ty.fabric;
  if (f.gpus_per_node <= 0 || f.gpus_per_node > kMaxGpusPerNode)
    throw InputError(fmt::format("cluster: node type {}: gpus_per_node must be 1..{}", ty.name, kMaxGpusPerNode));
  if (ty.nodes_per_domain() <= 0)
    throw InputError(fmt::format("cluster: node type {}: nodes_per_domain must be positive", ty.name));
  if (f.nodes_per_leaf < 0)
    throw InputError(fmt::format("cluster: node type {}: nodes_per_leaf must be >= 0", ty.name));
  if (!(f.spine_oversubscription >= 1) || f.spine_oversubscription > 1e6)
    throw InputError(fmt::format("cluster: node type {}: spine_oversubscription must be >= 1", ty.name));
  if (ty.domain_nodes.empty() != ty.leaf_domains.empty())
    throw InputError(fmt::format("cluster: node type {}: domain_nodes and leaf_domains go together", ty.name));
  int64_t nodes = 0, domains = 0;
  for (int n : ty.domain_nodes) nodes += n;
  for (int d : ty.leaf_domains) domains += d;
  const auto positive = [](int n) { return n > 0; };
  if (!ty.domain_nodes.empty() && (nodes != ty.count || domains != static_cast<int64_t>(ty.domain_nodes.size()) ||
                                   !std::all_of(ty.domain_nodes.begin(), ty.domain_nodes.end(), positive) ||
                                   !std::all_of(ty.leaf_domains.begin(), ty.leaf_domains.end(), positive)))
    throw InputError(fmt::format("cluster: node type {}: the domains and leaves it lists do not hold its {} nodes",
                                 ty.name, ty.count));
}

// Numbers type `ti`'s nodes after those already in `t`: domains of nodes_per_domain() nodes and
// leaves of nodes_per_leaf nodes, or the uneven domains and leaves the type lists.
void NumberType(ClusterTopology& t, int ti) {
  const NodeType& ty = t.types[ti];
  if (!ty.domain_nodes.empty()) {
    int domain = t.domains;
    for (int leaf = 0, d = 0; leaf < static_cast<int>(ty.leaf_domains.size()); ++leaf)
      for (int k = 0; k < ty.leaf_domains[leaf]; ++k, ++d, ++domain)
        for (int i = 0; i < ty.domain_nodes[d]; ++i) t.nodes.push_back({ti, domain, t.leaves + leaf});
    t.domains = domain;
    t.leaves += static_cast<int>(ty.leaf_domains.size());
    return;
  }
  const int per_domain = ty.nodes_per_domain();
  // Leaves hold whole domains: a leaf of fewer nodes than a domain holds one domain.
  const int per_leaf = ty.fabric.nodes_per_leaf == 0 ? ty.count : std::max(ty.fabric.nodes_per_leaf, per_domain);
  const int first_domain = t.domains, first_leaf = t.leaves;
  for (int i = 0; i < ty.count; ++i) t.nodes.push_back({ti, first_domain + i / per_domain, first_leaf + i / per_leaf});
  t.domains = first_domain + (ty.count + per_domain - 1) / per_domain;
  t.leaves = first_leaf + (ty.count + per_leaf - 1) / per_leaf;
}

}  // namespace

ClusterTopology BuildTopology(std::vector<NodeType> types) {
  ClusterTopology t;
  if (types.empty()) throw InputError("cluster: no node types");
  int64_t nodes = 0;
  for (const auto& ty : types) {
    CheckType(ty);
    nodes += ty.count;
    if (nodes > kMaxClusterNodes) throw InputError(fmt::format("cluster: more than {} nodes", kMaxClusterNodes));
  }
  t.types = std::move(types);
  int64_t gpus = 0;
  for (int ti = 0; ti < static_cast<int>(t.types.size()); ++ti) {
    const NodeType& ty = t.types[ti];
    NumberType(t, ti);
    gpus += int64_t{ty.count} * ty.fabric.gpus_per_node;
    t.max_gpus_per_node = std::max(t.max_gpus_per_node, ty.fabric.gpus_per_node);
  }
  if (gpus > (int64_t{1} << 30)) throw InputError("cluster: more than 2^30 GPUs");
  t.total_gpus = static_cast<int>(gpus);
  return t;
}

namespace {

// "6" or "4 to 6": the sizes of a type's listed groups.
std::string SizeRange(const std::vector<int>& sizes) {
  const auto [lo, hi] = std::minmax_element(sizes.begin(), sizes.end());
  return *lo == *hi ? fmt::format("{}", *lo) : fmt::format("{} to {}", *lo, *hi);
}

// ", NVLink domains of 18 nodes, 2 leaves of 36 nodes, spine 1:1" for a type that lists them.
std::string ListedGroups(const NodeType& ty) {
  std::string out;
  if (ty.nodes_per_domain() > 1) out += fmt::format(", NVLink domains of {} nodes", SizeRange(ty.domain_nodes));
  if (ty.leaf_domains.size() == 1) return out + ", one leaf";
  std::vector<int> leaf_nodes;
  for (size_t leaf = 0, d = 0; leaf < ty.leaf_domains.size(); ++leaf) {
    leaf_nodes.push_back(0);
    for (int k = 0; k < ty.leaf_domains[leaf]; ++k) leaf_nodes.back() += ty.domain_nodes[d++];
  }
  return out + fmt::format(", {} leaves of {} nodes, spine {:g}:1", leaf_nodes.size(), SizeRange(leaf_nodes),
                           ty.fabric.spine_oversubscription);
}

}  // namespace

std::string ClusterTopology::Describe() const {
  std::string out;
  for (const auto& ty : types) {
    const Fabric& f = ty.fabric;
    if (!out.empty()) out += "; ";
    out += fmt::format("{} nodes of {} {} ({} GPUs)", ty.count, f.gpus_per_node, ty.gpu,
                       int64_t{ty.count} * f.gpus_per_node);
    if (!ty.domain_nodes.empty()) {
      out += ListedGroups(ty);
      continue;
    }
    if (ty.nodes_per_domain() > 1) out += fmt::format(", NVLink domains of {} nodes", ty.nodes_per_domain());
    if (f.nodes_per_leaf > 0)
      out += fmt::format(", leaves of {} nodes, spine {:g}:1", f.nodes_per_leaf, f.spine_oversubscription);
    else
      out += ", one leaf";
  }
  return out;
}

}  // namespace paratune
