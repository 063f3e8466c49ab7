// CriticalPathGraph: the weighted DAG of HTA's critical-path analysis (analysis/critical_path.h)
// with networkx.DiGraph's semantics where the result depends on them: a node exists once an edge
// touches it (in that order), adding an edge that exists replaces its data in place, and the
// longest path is networkx's dag_longest_path (networkx/algorithms/dag.py, 3.x): nodes in
// topological_generations order, each takes its first predecessor (in edge order) of maximal
// distance, the path ends at the first node of maximal distance. So the path, not only its
// length, is HTA's when weights tie. Memory is flat: the edges in one array, an open-addressing
// index of (from, to), and the adjacency built once, in edge order, for the path search.
#pragma once

#include <cstdint>
#include <vector>

namespace paratune {

class CriticalPathGraph {
 public:
  struct Edge {
    int32_t from = 0, to = 0;
    int64_t weight = 0;       // as added (may be negative)
    int64_t attributed = -1;  // event the edge's time belongs to; -1: none
    uint8_t type = 0;
  };

  explicit CriticalPathGraph(int32_t nodes);

  // Adds (or replaces the type and weight of) from -> to; returns the edge's id.
  int32_t AddEdge(int32_t from, int32_t to, uint8_t type, int64_t weight);
  Edge& At(int32_t id) { return edges_[static_cast<size_t>(id)]; }
  const std::vector<Edge>& Edges() const { return edges_; }
  int64_t NodesWithEdges() const { return static_cast<int64_t>(order_.size()); }

  // networkx dag_longest_path with negative weights counted as 0 (HTA's non-strict validation);
  // the edge ids along it. Empty when the graph has a cycle (*cyclic set) or no edge.
  std::vector<int32_t> LongestPath(bool* cyclic) const;

 private:
  // Edge ids grouped by node (CSR), each node's in edge order.
  struct Adjacency {
    std::vector<int32_t> start, ids;
  };
  Adjacency Group(bool by_from) const;
  std::vector<int32_t> TopologicalOrder(const Adjacency& succ, bool* cyclic) const;
  int32_t* Slot(uint64_t key);

  int32_t nodes_ = 0;
  std::vector<Edge> edges_;
  std::vector<int32_t> order_;  // nodes in the order an edge first touched them
  std::vector<uint8_t> seen_;
  std::vector<uint64_t> keys_;  // open addressing, linear probing; 0 = empty (keys are stored + 1)
  std::vector<int32_t> slots_;
};

}  // namespace paratune
