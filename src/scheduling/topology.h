// ClusterTopology: the shared cluster a job trace is replayed on: nodes of one or more types,
// each node inside an NVLink domain (1 node on HGX, 18 four-GPU trays on NVL72), domains under
// leaf switches, leaves under a spine whose uplinks are oversubscribed. Built from the cost
// model's fabric description (hardware/fabric.h): flags (`--nodes 256 --gpu B300`), a cluster
// TOML file with one [[nodes]] table per node type, the Alibaba v2023 node list, or a Slurm
// topology.conf (slurm_topology.h). Nodes are numbered in order: a type's nodes fill its domains,
// domains fill its leaves; domains and leaves never mix node types. docs/cluster.md describes the
// files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hardware/cluster.h"
#include "hardware/hardware_catalog.h"

namespace paratune {

struct NodeType {
  std::string name;     // the [[nodes]] name, or the GPU name when built from flags
  std::string gpu;      // GPU name as written (catalog name, or a trace's model such as "T4")
  bool priced = false;  // `gpu` is in the hardware catalog: jobs here can be priced
  // The one place for the node's shape, for every type: gpus_per_node, nvlink_domain (in GPUs:
  // gpus_per_node x nodes_per_domain(), or at most the node where the domain is smaller),
  // nodes_per_leaf (0: all of this type under one leaf) and spine_oversubscription. A priced
  // type's is the cost model's whole fabric for it, with one NIC per GPU; an unpriced type's
  // holds just those shape fields.
  Fabric fabric;
  GpuSpec gpu_spec;  // the chip (priced types)
  int count = 0;     // nodes of this type
  // Uneven groups, where a file lists them one by one (a Slurm topology.conf: leaves of 6 and 4
  // nodes, blocks of 18): the nodes of each NVLink domain and the domains under each leaf, in
  // numbering order (domain_nodes sums to count, leaf_domains to domain_nodes.size()). Empty:
  // domains of nodes_per_domain() nodes and leaves of fabric.nodes_per_leaf. Given, the fabric's
  // sizes are the largest domain's and leaf's (nodes_per_leaf 0 when there is one leaf): what a
  // placement's "fits in one domain / one leaf" asks.
  std::vector<int> domain_nodes;
  std::vector<int> leaf_domains;

  // NVLink domain size in nodes: fabric.nvlink_domain / fabric.gpus_per_node, at least 1.
  int nodes_per_domain() const;
};

struct ClusterNode {
  int type = 0;    // index into ClusterTopology::types
  int domain = 0;  // global NVLink-domain index
  int leaf = 0;    // global leaf-switch index
};

struct ClusterTopology {
  std::vector<NodeType> types;
  std::vector<ClusterNode> nodes;  // in numbering order
  int domains = 0;
  int leaves = 0;
  int total_gpus = 0;
  int max_gpus_per_node = 0;
  // The nodes' host names in numbering order, where the file names them (a Slurm topology.conf:
  // "gpu001"); empty for the other descriptions. Kept for mapping a Slurm history's NodeList
  // onto the nodes.
  std::vector<std::string> node_names;

  // "256 nodes of 8 B300 (2048 GPUs), 32 leaves of 8 nodes, spine 1:1" (one line per type).
  std::string Describe() const;
};

// The numbering of nodes, domains and leaves from a list of node types (count, sizes filled).
// Throws InputError on a non-positive count or size, or more than kMaxClusterNodes nodes.
ClusterTopology BuildTopology(std::vector<NodeType> types);

// `nodes` nodes of the GPU's reference system (its fabric from the catalog).
ClusterTopology TopologyFromFlags(const HardwareCatalog& catalog, const std::string& gpu, int nodes);

// A cluster TOML file (docs/cluster.md), the Alibaba v2023 node list CSV
// (`sn,cpu_milli,memory_mib,gpu,model`) or a Slurm topology.conf (SwitchName=/BlockName= lines),
// told apart by content. A topology.conf names no GPU: its nodes are `gpu`'s reference node
// (`--gpu`; required there, ignored by the other formats). Throws InputError naming the file, line
// and field.
ClusterTopology ReadClusterFile(const HardwareCatalog& catalog, std::string_view text, const std::string& where,
                                const std::string& gpu = "");

inline constexpr int kMaxClusterNodes = 1 << 17;
inline constexpr int kMaxGpusPerNode = 1024;

}  // namespace paratune
