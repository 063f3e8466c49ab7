#include "scheduling/placement.h"

#include <algorithm>
#include <numeric>

namespace paratune {

namespace {
// The largest power of two dividing n (n > 0).
int PowerOfTwoPart(int n) { return n & -n; }
}  // namespace

PlacementShape ShapeOf(const ClusterTopology& topology, const Placement& placement) {
  PlacementShape s;
  if (placement.shares.empty()) return s;
  s.type = topology.nodes[placement.shares.front().node].type;
  const NodeType& ty = topology.types[s.type];
  int last_domain = -1, last_leaf = -1;
  int node_align = 0, domain_align = 0, domain_gpus = 0;
  for (const auto& share : placement.shares) {
    const ClusterNode& n = topology.nodes[share.node];
    s.gpus += share.gpus;
    ++s.nodes;
    if (n.domain != last_domain) {
      if (last_domain >= 0) domain_align = std::gcd(domain_align, domain_gpus);
      ++s.domains;
      last_domain = n.domain;
      domain_gpus = 0;
    }
    domain_gpus += share.gpus;
    if (n.leaf != last_leaf) {
      ++s.leaves;
      last_leaf = n.leaf;
    }
    node_align = std::gcd(node_align, share.gpus);
  }
  domain_align = std::gcd(domain_align, domain_gpus);
  s.aligned_per_node = std::min(PowerOfTwoPart(node_align), PowerOfTwoPart(ty.fabric.gpus_per_node));
  if (s.nodes == 1) s.aligned_per_node = std::min(s.gpus, ty.fabric.gpus_per_node);
  s.aligned_per_domain = s.domains == 1 ? s.gpus : PowerOfTwoPart(domain_align);
  s.min_nodes = (s.gpus + ty.fabric.gpus_per_node - 1) / ty.fabric.gpus_per_node;
  int domain_gpus_cap = ty.fabric.gpus_per_node * ty.nodes_per_domain();
  s.min_domains = (s.gpus + domain_gpus_cap - 1) / domain_gpus_cap;
  return s;
}

}  // namespace paratune
