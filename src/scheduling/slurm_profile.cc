#include "scheduling/slurm_profile.h"

#include <algorithm>
#include <cmath>

namespace paratune {

SlurmProfile::SlurmProfile(const ClusterTopology& topology)
    : topology_(&topology),
      holds_(topology.nodes.size()),
      ends_by_node_(topology.nodes.size()),
      gaps_(topology.nodes.size()),
      cached_(topology.nodes.size(), 0) {
  std::vector<int> per_leaf(topology.leaves, 0);
  for (const ClusterNode& n : topology.nodes) max_leaf_nodes_ = std::max(max_leaf_nodes_, ++per_leaf[n.leaf]);
}

void SlurmProfile::Reset(double now) {
  now_ = now;
  for (auto& h : holds_) h.clear();
  std::fill(cached_.begin(), cached_.end(), 0);
}

void SlurmProfile::Cache(int node) const {
  if (cached_[node]) return;
  cached_[node] = 1;
  auto& ends = ends_by_node_[node];
  ends.clear();
  std::vector<std::pair<double, double>> busy;
  for (const Hold_& h : holds_[node])
    if (h.to_s > now_) {
      ends.push_back(h.to_s);
      busy.emplace_back(std::max(h.from_s, now_), h.to_s);
    }
  std::sort(ends.begin(), ends.end());
  std::sort(busy.begin(), busy.end());
  auto& gaps = gaps_[node];
  gaps.clear();
  double free_from = now_;
  for (const auto& [from, to] : busy) {
    if (from > free_from) gaps.emplace_back(free_from, from);
    free_from = std::max(free_from, to);
  }
  gaps.emplace_back(free_from, INFINITY);
}

int SlurmProfile::PerNode(int node) const { return topology_->types[topology_->nodes[node].type].fabric.gpus_per_node; }

void SlurmProfile::Hold(int node, int gpus, double from_s, double to_s) {
  if (to_s > from_s && gpus > 0) {
    holds_[node].push_back({from_s, to_s, gpus});
    cached_[node] = 0;
  }
}

void SlurmProfile::Hold(const Placement& p, double from_s, double to_s) {
  for (const auto& share : p.shares) Hold(share.node, share.gpus, from_s, to_s);
}

bool SlurmProfile::FreeOver(int node, int gpus, double from_s, double to_s) const {
  // The held count is largest at the window's start or at a hold's start inside it.
  const int room = PerNode(node) - gpus;
  if (room < 0) return false;
  const auto& holds = holds_[node];
  const auto fits_at = [&](double t) {
    int n = 0;
    for (const Hold_& h : holds)
      if (h.from_s <= t && t < h.to_s && (n += h.gpus) > room) return false;
    return true;
  };
  if (!fits_at(from_s)) return false;
  for (const Hold_& h : holds)
    if (h.from_s > from_s && h.from_s < to_s && !fits_at(h.from_s)) return false;
  return true;
}

std::vector<char> SlurmProfile::Excluded(const std::vector<int>& types, int gpus, double duration_s) const {
  std::vector<char> excluded(topology_->nodes.size(), 1);
  for (size_t n = 0; n < excluded.size(); ++n) {
    const int node = static_cast<int>(n);
    if (std::find(types.begin(), types.end(), topology_->nodes[n].type) == types.end()) continue;
    const int per = PerNode(node);
    const int need = gpus <= per ? gpus : per;
    excluded[n] = !FreeOver(node, need, now_, now_ + duration_s);
  }
  return excluded;
}

double SlurmProfile::EarliestOnNode(int node, int gpus, double duration_s, double before_s) const {
  if (gpus > PerNode(node)) return INFINITY;
  if (FreeOver(node, gpus, now_, now_ + duration_s)) return now_;
  Cache(node);
  for (double t : ends_by_node_[node]) {
    if (t >= before_s) break;
    if (FreeOver(node, gpus, t, t + duration_s)) return t;
  }
  return INFINITY;  // none before `before_s`
}

std::optional<SlurmProfile::Slot> SlurmProfile::Earliest(const std::vector<int>& types, int gpus, double duration_s,
                                                         double horizon_s, bool within_leaf) const {
  const int nodes = static_cast<int>(topology_->nodes.size());
  const auto usable = [&](int n) {
    return std::find(types.begin(), types.end(), topology_->nodes[n].type) != types.end();
  };
  // One node: the node that frees the GPUs first (the lowest index among equals).
  int per_max = 0;
  for (int n = 0; n < nodes; ++n)
    if (usable(n)) per_max = std::max(per_max, PerNode(n));
  if (per_max == 0) return std::nullopt;
  if (gpus <= per_max) {
    double best = INFINITY;
    int best_node = -1;
    for (int n = 0; n < nodes; ++n) {
      if (!usable(n)) continue;
      const double t = EarliestOnNode(n, gpus, duration_s, std::min(best, horizon_s));
      if (t < best) best = t, best_node = n;
    }
    if (best_node < 0 || best >= horizon_s) return std::nullopt;
    return Slot{best, Placement{{{best_node, gpus}}}};
  }
  // Whole nodes: per node, the start times at which it is wholly free for the duration (the
  // gaps between its holds at least that long), as windows [from, to].
  windows_.clear();
  for (int n = 0; n < nodes; ++n) {
    if (!usable(n) || PerNode(n) < per_max) continue;
    Cache(n);
    for (const auto& [from, to] : gaps_[n])
      if (to - from >= duration_s && from < horizon_s) windows_.push_back({from, to - duration_s, n});
  }
  const int need = (gpus + per_max - 1) / per_max;
  const auto leaf = [&](const Window& w) { return topology_->nodes[w.node].leaf; };
  if (!within_leaf || need > max_leaf_nodes_) {
    std::sort(windows_.begin(), windows_.end(), [](const Window& a, const Window& b) { return a.from_s < b.from_s; });
    return Sweep(windows_.begin(), windows_.end(), need, gpus, horizon_s);
  }
  // Inside one leaf: each leaf's windows apart, the earliest of the leaves.
  std::sort(windows_.begin(), windows_.end(), [&](const Window& a, const Window& b) {
    return leaf(a) != leaf(b) ? leaf(a) < leaf(b) : a.from_s < b.from_s;
  });
  std::optional<Slot> best;
  for (auto from = windows_.begin(); from != windows_.end();) {
    auto to = from;
    while (to != windows_.end() && leaf(*to) == leaf(*from)) ++to;
    if (auto slot = Sweep(from, to, need, gpus, best ? best->start_s : horizon_s)) best = std::move(slot);
    from = to;
  }
  return best;
}

std::optional<SlurmProfile::Slot> SlurmProfile::Sweep(std::vector<Window>::iterator first,
                                                      std::vector<Window>::iterator last, int need, int gpus,
                                                      double horizon_s) const {
  // A window with to < t has from <= t too, so the count at t is the number of windows starting
  // at or before t less those ending before it.
  ends_.clear();
  for (auto w = first; w != last; ++w) ends_.push_back(w->to_s);
  std::sort(ends_.begin(), ends_.end());
  size_t ended = 0;
  const size_t count = static_cast<size_t>(last - first);
  for (size_t i = 0; i < count; ++i) {
    const double t = first[i].from_s;
    if (t >= horizon_s) break;
    if (i + 1 < count && first[i + 1].from_s == t) continue;  // count all starting at t
    while (ended < ends_.size() && ends_[ended] < t) ++ended;
    if (static_cast<int>(i + 1 - ended) < need) continue;
    Placement p;  // the lowest-numbered nodes free then
    for (size_t w = 0; w <= i; ++w)
      if (first[w].to_s >= t) p.shares.push_back({first[w].node, 0});
    std::sort(p.shares.begin(), p.shares.end(), [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
    p.shares.resize(need);
    int left = gpus;
    for (auto& share : p.shares) left -= share.gpus = std::min(left, PerNode(share.node));
    return Slot{t, std::move(p)};
  }
  return std::nullopt;
}

}  // namespace paratune
