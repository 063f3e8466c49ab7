#include "scheduling/topology.h"

#include <fmt/format.h>

#include "util/error.h"

namespace paratune {

int NodeType::nodes_per_domain() const {
  if (fabric.gpus_per_node <= 0 || fabric.nvlink_domain <= fabric.gpus_per_node) return 1;
  return fabric.nvlink_domain / fabric.gpus_per_node;
}

ClusterTopology BuildTopology(std::vector<NodeType> types) {
  ClusterTopology t;
  if (types.empty()) throw InputError("cluster: no node types");
  int64_t nodes = 0;
  for (const auto& ty : types) {
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
    nodes += ty.count;
    if (nodes > kMaxClusterNodes) throw InputError(fmt::format("cluster: more than {} nodes", kMaxClusterNodes));
  }
  t.types = std::move(types);
  int64_t gpus = 0;
  for (int ti = 0; ti < static_cast<int>(t.types.size()); ++ti) {
    const NodeType& ty = t.types[ti];
    const int per_domain = ty.nodes_per_domain(), gpus_per_node = ty.fabric.gpus_per_node;
    // Leaves hold whole domains: a leaf of fewer nodes than a domain holds one domain.
    int per_leaf = ty.fabric.nodes_per_leaf == 0 ? ty.count : std::max(ty.fabric.nodes_per_leaf, per_domain);
    int first_domain = t.domains, first_leaf = t.leaves;
    for (int i = 0; i < ty.count; ++i) {
      ClusterNode n;
      n.type = ti;
      n.domain = first_domain + i / per_domain;
      n.leaf = first_leaf + i / per_leaf;
      t.nodes.push_back(n);
    }
    t.domains = first_domain + (ty.count + per_domain - 1) / per_domain;
    t.leaves = first_leaf + (ty.count + per_leaf - 1) / per_leaf;
    gpus += int64_t{ty.count} * gpus_per_node;
    t.max_gpus_per_node = std::max(t.max_gpus_per_node, gpus_per_node);
  }
  if (gpus > (int64_t{1} << 30)) throw InputError("cluster: more than 2^30 GPUs");
  t.total_gpus = static_cast<int>(gpus);
  return t;
}

std::string ClusterTopology::Describe() const {
  std::string out;
  for (const auto& ty : types) {
    const Fabric& f = ty.fabric;
    if (!out.empty()) out += "; ";
    out += fmt::format("{} nodes of {} {} ({} GPUs)", ty.count, f.gpus_per_node, ty.gpu,
                       int64_t{ty.count} * f.gpus_per_node);
    if (ty.nodes_per_domain() > 1) out += fmt::format(", NVLink domains of {} nodes", ty.nodes_per_domain());
    if (f.nodes_per_leaf > 0)
      out += fmt::format(", leaves of {} nodes, spine {:g}:1", f.nodes_per_leaf, f.spine_oversubscription);
    else
      out += ", one leaf";
  }
  return out;
}

}  // namespace paratune
