#include "analysis/critical_path_graph.h"

#include <algorithm>

namespace paratune {

// The index starts at twice the nodes (a graph has about one edge per node), so it rarely grows.
CriticalPathGraph::CriticalPathGraph(int32_t nodes) : nodes_(nodes), seen_(static_cast<size_t>(nodes), 0) {
  size_t size = 1024;
  while (size < 2 * static_cast<size_t>(nodes)) size *= 2;
  keys_.assign(size, 0);
  slots_.assign(size, -1);
}

// The index slot of `key` (+1, never 0): its edge id or -1 where it would go. Doubles at half full.
int32_t* CriticalPathGraph::Slot(uint64_t key) {
  if (edges_.size() * 2 >= keys_.size()) {
    std::vector<uint64_t> old_keys(keys_.size() * 2, 0);
    std::vector<int32_t> old_slots(keys_.size() * 2, -1);
    old_keys.swap(keys_);
    old_slots.swap(slots_);
    for (size_t i = 0; i < old_keys.size(); ++i)
      if (old_keys[i] != 0) {
        int32_t* s = Slot(old_keys[i]);
        keys_[static_cast<size_t>(s - slots_.data())] = old_keys[i];
        *s = old_slots[i];
      }
  }
  const size_t mask = keys_.size() - 1;
  size_t i = (key * 0x9E3779B97F4A7C15ull) >> 20 & mask;
  while (keys_[i] != 0 && keys_[i] != key) i = (i + 1) & mask;
  keys_[i] = key;
  return &slots_[i];
}

int32_t CriticalPathGraph::AddEdge(int32_t from, int32_t to, uint8_t type, int64_t weight) {
  for (int32_t n : {from, to}) {
    if (!seen_[static_cast<size_t>(n)]) {
      seen_[static_cast<size_t>(n)] = 1;
      order_.push_back(n);
    }
  }
  const uint64_t key = ((static_cast<uint64_t>(static_cast<uint32_t>(from)) << 32) | static_cast<uint32_t>(to)) + 1;
  int32_t* slot = Slot(key);
  if (*slot >= 0) {  // networkx add_edge on an existing edge updates its data, keeps its place
    Edge& e = edges_[static_cast<size_t>(*slot)];
    e.type = type;
    e.weight = weight;
    return *slot;
  }
  *slot = static_cast<int32_t>(edges_.size());
  edges_.push_back({from, to, weight, -1, type});
  return *slot;
}

CriticalPathGraph::Adjacency CriticalPathGraph::Group(bool by_from) const {
  Adjacency a;
  a.start.assign(static_cast<size_t>(nodes_) + 1, 0);
  for (const Edge& e : edges_) ++a.start[static_cast<size_t>(by_from ? e.from : e.to) + 1];
  for (size_t i = 1; i < a.start.size(); ++i) a.start[i] += a.start[i - 1];
  std::vector<int32_t> fill(a.start.begin(), a.start.end() - 1);
  a.ids.resize(edges_.size());
  for (size_t id = 0; id < edges_.size(); ++id) {
    const int32_t n = by_from ? edges_[id].from : edges_[id].to;
    a.ids[static_cast<size_t>(fill[static_cast<size_t>(n)]++)] = static_cast<int32_t>(id);
  }
  return a;
}

// networkx topological_generations, flattened: the zero-in-degree nodes in node order, then each
// generation's children in the order their last parent releases them.
std::vector<int32_t> CriticalPathGraph::TopologicalOrder(const Adjacency& succ, bool* cyclic) const {
  std::vector<int32_t> indegree(static_cast<size_t>(nodes_), 0);
  for (const Edge& e : edges_) ++indegree[static_cast<size_t>(e.to)];
  std::vector<int32_t> topo;
  topo.reserve(order_.size());
  for (int32_t n : order_)
    if (indegree[static_cast<size_t>(n)] == 0) topo.push_back(n);
  for (size_t i = 0; i < topo.size(); ++i) {
    const auto n = static_cast<size_t>(topo[i]);
    for (int32_t k = succ.start[n]; k < succ.start[n + 1]; ++k) {
      const int32_t child = edges_[static_cast<size_t>(succ.ids[static_cast<size_t>(k)])].to;
      if (--indegree[static_cast<size_t>(child)] == 0) topo.push_back(child);
    }
  }
  *cyclic = topo.size() != order_.size();
  return topo;
}

std::vector<int32_t> CriticalPathGraph::LongestPath(bool* cyclic) const {
  const std::vector<int32_t> topo = TopologicalOrder(Group(true), cyclic);
  if (*cyclic || topo.empty()) return {};
  const Adjacency pred = Group(false);
  std::vector<int64_t> dist(static_cast<size_t>(nodes_), 0);
  std::vector<int32_t> via(static_cast<size_t>(nodes_), -1);  // the chosen edge in, -1 at a source
  for (int32_t v : topo) {
    int64_t best = 0;
    int32_t best_edge = -1;
    const auto n = static_cast<size_t>(v);
    for (int32_t k = pred.start[n]; k < pred.start[n + 1]; ++k) {
      const int32_t id = pred.ids[static_cast<size_t>(k)];
      const Edge& e = edges_[static_cast<size_t>(id)];
      const int64_t d = dist[static_cast<size_t>(e.from)] + std::max<int64_t>(e.weight, 0);
      if (best_edge < 0 || d > best) best = d, best_edge = id;  // the first maximum, as max()
    }
    dist[n] = best;
    via[n] = best_edge;
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
