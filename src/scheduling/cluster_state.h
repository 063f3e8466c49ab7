// ClusterState: which GPUs of the cluster are free, node by node, with the indexes the
// placement searches need in O(1)-ish time: per node type, the nodes grouped by their free GPU
// count (ascending node index inside each group) and, per leaf switch and per NVLink domain, the
// wholly free nodes. The placement searches of the policies (first fit, topology-aware best
// fit, split fit) live here so that every policy and the EASY reservation use the same ones.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "scheduling/placement.h"
#include "scheduling/topology.h"

namespace paratune {

class ClusterState {
 public:
  explicit ClusterState(const ClusterTopology& topology);

  const ClusterTopology& topology() const { return *topology_; }
  int free(int node) const { return free_[node]; }
  int free_total() const { return free_total_; }
  int free_of_type(int type) const { return free_by_type_[type]; }
  int used_total() const { return topology_->total_gpus - free_total_; }
  // Nodes with some but not all GPUs free, and NVLink domains with some but not all free.
  int partial_nodes() const { return partial_nodes_; }
  int partial_domains() const { return partial_domains_; }
  int whole_free_nodes(int type) const { return static_cast<int>(by_free_[type].back().size()); }
  // Free GPUs on nodes that have fewer than `gpus` free (of `type`): GPUs a job needing `gpus`
  // on one node cannot use.
  int FreeBelow(int type, int gpus) const;

  void Take(const Placement& p);
  void Release(const Placement& p);

  // The node types a job may use: its gpu_type's, or all (in type order); kept per gpu_type.
  const std::vector<int>& TypesFor(const std::string& gpu_type) const;

  // GPU-level first fit in node order: the first free GPUs, wherever they are (FIFO's baseline,
  // the placement that splits jobs). Nodes of one type only.
  std::optional<Placement> FirstFit(int type, int gpus) const;
  // Topology-aware best fit: the fewest nodes, then the fewest NVLink domains, then one leaf,
  // on the fullest nodes/domains/leaves that can hold the job (best fit). nullopt when no
  // packed placement exists. `excluded` (may be null) marks nodes not to use (a reservation).
  std::optional<Placement> BestFit(int type, int gpus, const std::vector<char>* excluded = nullptr) const;
  // The least-split placement when no packed one exists: whole free nodes first (fewest
  // leaves), then the nodes with the most free GPUs. nullopt when fewer GPUs are free.
  std::optional<Placement> SplitFit(int type, int gpus, const std::vector<char>* excluded = nullptr) const;
  // A job wider than a node on whole free nodes across leaves (SplitFit's first choice, the fewest
  // leaves), as Slurm's topology/tree and Kubernetes place one that no leaf holds; nullopt for a
  // job of one node or when too few whole nodes are free.
  std::optional<Placement> WholeNodesFit(int type, int gpus, const std::vector<char>* excluded = nullptr) const;

 private:
  void Move(int node, int old_free, int new_free);

  std::vector<int> ComputeTypesFor(const std::string& gpu_type) const;

  const ClusterTopology* topology_;
  std::vector<int> all_types_;
  mutable std::map<std::string, std::vector<int>, std::less<>> types_for_;
  std::vector<int> free_;
  int free_total_ = 0;
  std::vector<int> free_by_type_;
  // by_free_[type][k]: nodes of the type with k free GPUs (k = 0..gpus_per_node).
  std::vector<std::vector<std::set<int>>> by_free_;
  std::vector<int> leaf_whole_free_;            // wholly free nodes per leaf
  std::vector<int> domain_whole_free_;          // wholly free nodes per domain
  std::vector<int> domain_free_;                // free GPUs per domain
  std::vector<int> domain_gpus_;                // GPUs per domain
  std::vector<std::vector<int>> type_leaves_;   // leaves of each type, ascending
  std::vector<std::vector<int>> leaf_nodes_;    // nodes of each leaf, ascending
  std::vector<std::vector<int>> domain_nodes_;  // nodes of each domain, ascending
  int partial_nodes_ = 0;
  int partial_domains_ = 0;
};

}  // namespace paratune
