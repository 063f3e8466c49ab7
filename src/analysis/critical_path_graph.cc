#include "analysis/critical_path_graph.h"

#include <algorithm>

namespace paratune {

CriticalPathGraph::CriticalPathGraph(int32_t nodes)
    : succ_(static_cast<size_t>(nodes)), pred_(static_cast<size_t>(nodes)), seen_(static_cast<size_t>(nodes), 0) {}

int32_t CriticalPathGraph::AddEdge(int32_t from, int32_t to, uint8_t type, int64_t weight) {
  const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(from)) << 32) | static_cast<uint32_t>(to);
  for (int32_t n : {from, to}) {
    if (!seen_[static_cast<size_t>(n)]) {
      seen_[static_cast<size_t>(n)] = 1;
      order_.push_back(n);
    }
  }
  const auto [it, added] = index_.emplace(key, static_cast<int32_t>(edges_.size()));
  if (!added) {  // networkx add_edge on an existing edge updates its data, keeps its place
    Edge& e = edges_[static_cast<size_t>(it->second)];
    e.type = type;
    e.weight = weight;
    e.attributed = -1;
    return it->second;
  }
  edges_.push_back({from, to, type, weight, -1});
  succ_[static_cast<size_t>(from)].push_back(it->second);
  pred_[static_cast<size_t>(to)].push_back(it->second);
  return it->second;
}

// networkx topological_generations, flattened: the zero-in-degree nodes in node order, then each
// generation's children in the order their last parent releases them.
std::vector<int32_t> CriticalPathGraph::TopologicalOrder(bool* cyclic) const {
  std::vector<int32_t> indegree(succ_.size(), 0);
  for (const Edge& e : edges_) ++indegree[static_cast<size_t>(e.to)];
  std::vector<int32_t> topo;
  topo.reserve(order_.size());
  for (int32_t n : order_)
    if (indegree[static_cast<size_t>(n)] == 0) topo.push_back(n);
  for (size_t i = 0; i < topo.size(); ++i) {
    for (int32_t id : succ_[static_cast<size_t>(topo[i])]) {
      const int32_t child = edges_[static_cast<size_t>(id)].to;
      if (--indegree[static_cast<size_t>(child)] == 0) topo.push_back(child);
    }
  }
  *cyclic = topo.size() != order_.size();
  return topo;
}

std::vector<int32_t> CriticalPathGraph::LongestPath(bool* cyclic) const {
  const std::vector<int32_t> topo = TopologicalOrder(cyclic);
  if (*cyclic || topo.empty()) return {};
  // dist[v] = (length, edge id from the chosen predecessor or -1 at a source)
  std::vector<int64_t> dist(succ_.size(), 0);
  std::vector<int32_t> via(succ_.size(), -1);
  for (int32_t v : topo) {
    int64_t best = 0;
    int32_t best_edge = -1;
    for (int32_t id : pred_[static_cast<size_t>(v)]) {
      const Edge& e = edges_[static_cast<size_t>(id)];
      const int64_t d = dist[static_cast<size_t>(e.from)] + std::max<int64_t>(e.weight, 0);
      if (best_edge < 0 || d > best) best = d, best_edge = id;  // the first maximum, as max()
    }
    dist[static_cast<size_t>(v)] = best;
    via[static_cast<size_t>(v)] = best_edge;
  }
  int32_t end = topo.front();
  for (int32_t v : topo)
    if (dist[static_cast<size_t>(v)] > dist[static_cast<size_t>(end)]) end = v;
  std::vector<int32_t> path;
  for (int32_t v = end; via[static_cast<size_t>(v)] >= 0;) {
    path.push_back(via[static_cast<size_t>(v)]);
    v = edges_[static_cast<size_t>(via[static_cast<size_t>(v)])].from;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace paratune
