// Placement: the GPUs a running job holds, node by node, and its shape (how many nodes, NVLink
// domains and leaf switches it spans), from which the speed model prices it and the metrics
// count split placements.
#pragma once

#include <vector>

#include "scheduling/topology.h"

namespace paratune {

struct NodeShare {
  int node = 0;
  int gpus = 0;
};

struct Placement {
  std::vector<NodeShare> shares;  // ascending node index, gpus > 0
  int gpus() const {
    int n = 0;
    for (const auto& s : shares) n += s.gpus;
    return n;
  }
};

struct PlacementShape {
  int type = 0;  // node type (a placement never mixes types)
  int gpus = 0;
  int nodes = 0;        // nodes spanned
  int domains = 0;      // NVLink domains spanned
  int leaves = 0;       // leaf switches spanned
  int min_nodes = 0;    // the fewest nodes of this type that could hold the job
  int min_domains = 0;  // the fewest domains
  // GPUs of the job per node that every rank group of a power-of-two size up to this stays
  // inside one node for (the largest power of two dividing every share, at most gpus_per_node).
  int aligned_per_node = 0;
  // The same for NVLink domains (GPUs per domain).
  int aligned_per_domain = 0;
  // A placement spread over more nodes (or domains) than the job needs.
  bool split() const { return nodes > min_nodes || domains > min_domains; }
};

PlacementShape ShapeOf(const ClusterTopology& topology, const Placement& placement);

}  // namespace paratune
