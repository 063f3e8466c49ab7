#include "scheduling/slurm_profile.h"

#include <algorithm>

namespace paratune {

SlurmProfile::SlurmProfile(const ClusterTopology& topology)
    : topology_(&topology),
      holds_(topology.nodes.size()),
      views_(topology.nodes.size()),
      bases_(topology.nodes.size()),
      view_of_(topology.nodes.size(), nullptr),
      leaf_nodes_(topology.leaves),
      leaf_first_free_(topology.leaves),
      leaf_changed_(topology.leaves, 1),
      leaf_bounds_(topology.leaves),
      leaf_bounds_added_(topology.leaves, 0),
      usable_(topology.nodes.size(), 0) {
  for (size_t n = 0; n < topology.nodes.size(); ++n) {
    leaf_nodes_[topology.nodes[n].leaf].push_back(static_cast<int>(n));
    per_node_.push_back(topology.types[topology.nodes[n].type].fabric.gpus_per_node);
  }
  for (const auto& nodes : leaf_nodes_) max_leaf_nodes_ = std::max(max_leaf_nodes_, static_cast<int>(nodes.size()));
}

void SlurmProfile::Reset(double now) {
  now_ = now;
  for (auto& h : holds_) h.clear();
  std::fill(view_of_.begin(), view_of_.end(), nullptr);
  std::fill(leaf_changed_.begin(), leaf_changed_.end(), 1);
  for (auto& b : leaf_bounds_) b.clear();
}

bool SlurmProfile::SameAfterNow(const std::vector<Hold_>& a, const std::vector<Hold_>& b) const {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].to_s != b[i].to_s || a[i].gpus != b[i].gpus || std::max(a[i].from_s, now_) != std::max(b[i].from_s, now_))
      return false;
  return true;
}

const SlurmProfile::NodeView& SlurmProfile::Compute(int node) const {
  // A node's first view in a pass: from its view in an earlier pass where its holds are the same
  // from now on (running jobs that neither ended nor started), else from its holds.
  Base& base = bases_[node];
  view_of_[node] = &base.view;
  NodeView& v = base.view;
  std::vector<Step>& steps = v.steps;
  if (base.now_s <= now_ && SameAfterNow(base.holds, holds_[node])) {
    if (steps.size() > 1 && steps[1].t <= now_) {  // a step passed
      auto at = std::upper_bound(steps.begin(), steps.end(), now_, [](double t, const Step& s) { return t < s.t; });
      steps.erase(steps.begin(), at - 1);
      steps.front().t = now_;
      Summarize(node, &v);
    }  // else the view holds as it is: only its first step starts at an earlier now
  } else {
    base.holds = holds_[node];
    BuildSteps(holds_[node], &steps);
    Summarize(node, &v);
  }
  base.now_s = now_;
  leaf_changed_[topology_->nodes[node].leaf] = 1;
  return v;
}

void SlurmProfile::BuildSteps(const std::vector<Hold_>& holds, std::vector<Step>* steps) const {
  // The holds' starts (at now at the earliest) and ends as steps of the GPUs held: a hold covers
  // [from, to), so every change at a time is summed before the count there is read.
  events_.clear();
  for (const Hold_& h : holds)
    if (h.to_s > now_) {
      events_.emplace_back(std::max(h.from_s, now_), h.gpus);
      events_.emplace_back(h.to_s, -h.gpus);
    }
  std::sort(events_.begin(), events_.end());
  steps->clear();
  int used = 0;
  double t = now_;
  for (size_t i = 0;;) {
    while (i < events_.size() && events_[i].first <= t) used += events_[i++].second;
    if (steps->empty() || steps->back().used != used) steps->push_back({t, used});
    if (i == events_.size()) break;
    t = events_[i].first;
  }
}

void SlurmProfile::Summarize(int node, NodeView* v) const {
  const int per = PerNode(node);
  v->first_free.resize(per + 1);
  double* first_free = v->first_free.data();
  v->gaps.clear();
  int most_free = -1;
  const Step* steps = v->steps.data();
  const size_t n = v->steps.size();
  for (size_t i = 0; i < n; ++i) {
    const int free = per - steps[i].used;
    for (; most_free < free; ++most_free) first_free[most_free + 1] = steps[i].t;
    if (free == per) v->gaps.emplace_back(steps[i].t, i + 1 < n ? steps[i + 1].t : INFINITY);
  }
  for (; most_free < per; ++most_free) first_free[most_free + 1] = INFINITY;
}

void SlurmProfile::Hold(int node, int gpus, double from_s, double to_s) {
  if (!(to_s > from_s && gpus > 0)) return;
  holds_[node].push_back({from_s, to_s, gpus});
  if (!view_of_[node] || to_s <= now_) return;
  // The node's view, viewed already in this pass, gains the hold: its steps split at the hold's
  // start and end, the GPUs added in between, equal neighbours merged (only at the two splits:
  // the steps between gained the same GPUs).
  NodeView& v = views_[node];
  const bool first = view_of_[node] != &v;  // the pass's first hold on the node
  if (first) {
    v.steps = bases_[node].view.steps;
    v.steps.front().t = now_;
    view_of_[node] = &v;
  }
  std::vector<Step>& steps = v.steps;
  const auto split = [&](double t) {
    size_t i = std::upper_bound(steps.begin(), steps.end(), t, [](double x, const Step& s) { return x < s.t; }) -
               steps.begin() - 1;
    if (steps[i].t != t) {
      const int used = steps[i].used;
      steps.insert(steps.begin() + static_cast<std::ptrdiff_t>(++i), {t, used});
    }
    return i;
  };
  const double from = std::max(from_s, now_);
  size_t begin = split(from);
  const size_t end = split(to_s);
  for (size_t i = begin; i < end; ++i) steps[i].used += gpus;
  if (steps[end].used == steps[end - 1].used) steps.erase(steps.begin() + static_cast<std::ptrdiff_t>(end));
  if (begin > 0 && steps[begin].used == steps[begin - 1].used)
    steps.erase(steps.begin() + static_cast<std::ptrdiff_t>(begin--));
  if (first)
    Summarize(node, &v);
  else
    Update(node, &v, begin, from, to_s);
  leaf_changed_[topology_->nodes[node].leaf] = 1;
}

void SlurmProfile::Update(int node, NodeView* v, size_t at, double from_s, double to_s) const {
  // A count of GPUs first free before the hold's start, or at or after its end, still is then
  // (earlier times only gained GPUs held); one first free inside it is free no sooner, at the
  // first step from there with room (first-free times rise with the count, so one scan serves).
  const int per = PerNode(node);
  const std::vector<Step>& steps = v->steps;
  for (int g = 0; g <= per; ++g) {
    double& t = v->first_free[g];
    if (t < from_s) continue;
    if (t >= to_s) break;
    while (steps[at].used > per - g) ++at;  // the last step holds none
    t = steps[at].t;
  }
  // Wholly free intervals lose [from, to): cut at its ends, dropped inside it.
  auto& gaps = v->gaps;
  size_t k = 0;
  while (k < gaps.size() && gaps[k].second <= from_s) ++k;
  while (k < gaps.size() && gaps[k].first < to_s) {
    auto& [a, b] = gaps[k];
    if (a < from_s && b > to_s) {
      const double end = b;
      b = from_s;
      gaps.insert(gaps.begin() + static_cast<std::ptrdiff_t>(k + 1), {to_s, end});
      break;
    }
    if (a < from_s) {
      b = from_s, ++k;
    } else if (b > to_s) {
      a = to_s, ++k;
    } else {
      gaps.erase(gaps.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
}

void SlurmProfile::Hold(const Placement& p, double from_s, double to_s) {
  for (const auto& share : p.shares) Hold(share.node, share.gpus, from_s, to_s);
}

const std::vector<char>& SlurmProfile::Excluded(const std::vector<int>& types, int gpus, double duration_s,
                                                const ClusterState* state) const {
  UseTypes(types);
  excluded_.assign(topology_->nodes.size(), 1);
  for (int node : usable_nodes_) {
    const int per = PerNode(node);
    const int need = gpus <= per ? gpus : per;
    // The profile holds at least what the state does now: a node without the GPUs free now is
    // excluded unread.
    if (state && state->free(node) < need) continue;
    excluded_[node] = !FreeUntil(node, need, now_ + duration_s);
  }
  return excluded_;
}

double SlurmProfile::EarliestOnNode(int node, int gpus, double duration_s, double from_s, double before_s) const {
  // The earliest start is the start of the first run of steps with the GPUs free that lasts the
  // duration: a later start inside a run is feasible only if the run's start is.
  const int room = PerNode(node) - gpus;
  if (room < 0) return INFINITY;
  const std::vector<Step>& steps = View(node).steps;
  auto i = steps.begin();  // the step holding from_s (most searches start now, in the first)
  if (steps.size() > 1 && steps[1].t <= from_s)
    i = std::upper_bound(steps.begin(), steps.end(), from_s, [](double t, const Step& s) { return t < s.t; }) - 1;
  bool in_run = false;
  double run = 0;
  for (; i != steps.end(); ++i) {
    if (i->used <= room) {
      if (in_run) continue;
      run = std::max(i->t, from_s);
      if (run >= before_s) return INFINITY;
      in_run = true;
    } else if (in_run) {
      if (run + duration_s <= i->t) return run;
      in_run = false;
    }
  }
  return in_run ? run : INFINITY;
}

void SlurmProfile::UseTypes(const std::vector<int>& types) const {
  if (types == usable_types_) return;  // the nodes of `types`, kept for the next job of the same types
  usable_types_ = types;
  std::fill(leaf_changed_.begin(), leaf_changed_.end(), 1);
  for (auto& b : leaf_bounds_) b.clear();
  usable_.assign(topology_->nodes.size(), 0);
  usable_nodes_.clear();
  usable_per_max_ = 0;
  for (size_t n = 0; n < usable_.size(); ++n)
    if (std::find(types.begin(), types.end(), topology_->nodes[n].type) != types.end()) {
      usable_[n] = 1;
      usable_nodes_.push_back(static_cast<int>(n));
      usable_per_max_ = std::max(usable_per_max_, PerNode(static_cast<int>(n)));
    }
  whole_nodes_.clear();
  leaf_whole_nodes_.assign(leaf_nodes_.size(), {});
  for (size_t leaf = 0; leaf < leaf_nodes_.size(); ++leaf)
    for (int n : leaf_nodes_[leaf])
      if (usable_[n] && PerNode(n) == usable_per_max_) leaf_whole_nodes_[leaf].push_back(n);
  for (int n = 0; n < static_cast<int>(usable_.size()); ++n)
    if (usable_[n] && PerNode(n) == usable_per_max_) whole_nodes_.push_back(n);
}

SlurmProfile::Search SlurmProfile::SearchFor(const std::vector<int>& types, int gpus, bool within_leaf) const {
  UseTypes(types);
  if (gpus <= usable_per_max_) return Search::kOneNode;
  const int need = (gpus + std::max(usable_per_max_, 1) - 1) / std::max(usable_per_max_, 1);
  return within_leaf && need <= max_leaf_nodes_ ? Search::kWholeNodesInLeaf : Search::kWholeNodes;
}

std::optional<SlurmProfile::Slot> SlurmProfile::Earliest(const std::vector<int>& types, int gpus, double duration_s,
                                                         double horizon_s, bool within_leaf,
                                                         double not_before_s) const {
  UseTypes(types);
  const int per_max = usable_per_max_;
  const double from_s = std::max(now_, not_before_s);
  if (per_max == 0 || from_s >= horizon_s) return std::nullopt;
  if (gpus <= per_max) return EarliestOnOneNode(gpus, duration_s, horizon_s, from_s);
  return EarliestOnWholeNodes(per_max, gpus, duration_s, horizon_s, within_leaf, from_s);
}

std::optional<SlurmProfile::Slot> SlurmProfile::EarliestOnOneNode(int gpus, double duration_s, double horizon_s,
                                                                  double from_s) const {
  // The node that frees the GPUs first (the lowest index among equals); a node whose GPUs are
  // not free before the best so far is passed over unread.
  double best = INFINITY;
  int best_node = -1;
  for (int n : usable_nodes_) {
    if (gpus > per_node_[n]) continue;
    const double before = std::min(best, horizon_s);
    if (View(n).first_free[gpus] >= before) continue;
    const double t = EarliestOnNode(n, gpus, duration_s, from_s, before);
    if (t < best) {
      best = t, best_node = n;
      if (best <= from_s) break;  // none can start earlier
    }
  }
  if (best_node < 0 || best >= horizon_s) return std::nullopt;
  return Slot{best, Placement{{{best_node, gpus}}}};
}

std::optional<SlurmProfile::Slot> SlurmProfile::EarliestOnWholeNodes(int per, int gpus, double duration_s,
                                                                     double horizon_s, bool within_leaf,
                                                                     double from_s) const {
  const int need = (gpus + per - 1) / per;
  if (!within_leaf || need > max_leaf_nodes_) return Sweep(whole_nodes_, need, gpus, duration_s, from_s, horizon_s);
  // Inside one leaf: each leaf apart, the earliest of the leaves, the lowest-numbered among
  // equals. The leaves come up in the order of the start they cannot precede (LeafHeap), the
  // earlier searches' bounds taken in as a leaf comes up (a leaf whose bound then rises goes
  // back): the order of the full bounds, read for the leaves read. One whose bound is later than
  // the best so far ends the search.
  LeafHeap(per, need, from_s, horizon_s);
  std::optional<Slot> best;
  int best_leaf = 0;
  const auto beaten = [&](const LeafKey& key) {
    return best && (key.bound_s > best->start_s || (key.bound_s == best->start_s && key.leaf > best_leaf));
  };
  while (!leaf_heap_.empty()) {
    std::pop_heap(leaf_heap_.begin(), leaf_heap_.end(), LaterLeaf);
    LeafKey key = leaf_heap_.back();
    leaf_heap_.pop_back();
    const int leaf = key.leaf;
    if (beaten(key)) break;
    if (!key.full) {
      for (const LeafBound& b : leaf_bounds_[leaf])
        if (need >= b.need && duration_s >= b.duration_s) key.bound_s = std::max(key.bound_s, b.start_s);
      key.full = true;
      if (key.bound_s >= horizon_s) continue;
      if (!leaf_heap_.empty() && LaterLeaf(key, leaf_heap_.front())) {
        leaf_heap_.push_back(key);
        std::push_heap(leaf_heap_.begin(), leaf_heap_.end(), LaterLeaf);
        continue;
      }
      if (beaten(key)) break;
    }
    const double before_s = !best              ? horizon_s
                            : leaf < best_leaf ? std::nextafter(best->start_s, INFINITY)
                                               : best->start_s;
    auto slot = Sweep(leaf_whole_nodes_[leaf], need, gpus, duration_s, key.bound_s, before_s);
    std::vector<LeafBound>& bounds = leaf_bounds_[leaf];
    const LeafBound known{need, duration_s, slot ? slot->start_s : before_s};
    if (bounds.size() < kLeafBounds)
      bounds.push_back(known);
    else
      bounds[leaf_bounds_added_[leaf] % kLeafBounds] = known;
    ++leaf_bounds_added_[leaf];
    if (slot) {
      best = std::move(slot);
      best_leaf = leaf;
    }
  }
  return best;
}

void SlurmProfile::LeafHeap(int per, int need, double from_s, double horizon_s) const {
  // A leaf cannot start the job before `need` of its nodes are first wholly free (their first
  // wholly free times kept sorted per leaf, read again when a node of it changed).
  leaf_heap_.clear();
  for (size_t leaf = 0; leaf < leaf_whole_nodes_.size(); ++leaf) {
    const std::vector<int>& nodes = leaf_whole_nodes_[leaf];
    if (static_cast<int>(nodes.size()) < need) continue;
    std::vector<double>& free = leaf_first_free_[leaf];
    if (leaf_changed_[leaf]) {
      free.clear();
      for (int n : nodes) free.push_back(View(n).first_free[per]);
      std::sort(free.begin(), free.end());
      leaf_changed_[leaf] = 0;
    }
    const double bound = std::max(free[need - 1], from_s);
    if (bound < horizon_s) leaf_heap_.push_back({bound, static_cast<int>(leaf), false});
  }
  std::make_heap(leaf_heap_.begin(), leaf_heap_.end(), LaterLeaf);
}

std::optional<SlurmProfile::Slot> SlurmProfile::Sweep(const std::vector<int>& nodes, int need, int gpus,
                                                      double duration_s, double from_s, double before_s) const {
  // Per node, the starts at which it is wholly free for the duration (the gaps between its holds
  // at least that long) as windows [from, to - duration], visited in order of their start by a
  // merge of the nodes' sorted gaps; the count at a time t is the windows started at or before t
  // less those ended before it (a node's windows are disjoint, so each counts one node).
  const auto next_window = [&](int n, int gap, std::vector<Window>* into) {
    const auto& gaps = View(n).gaps;
    for (; gap < static_cast<int>(gaps.size()); ++gap) {
      const auto& [from, to] = gaps[gap];
      const double start = std::max(from, from_s);
      if (start >= before_s) return false;
      if (to - from >= duration_s && start <= to - duration_s) {
        into->push_back(Window{start, to - duration_s, n, gap});
        return true;
      }
    }
    return false;
  };
  const auto later_start = [](const Window& a, const Window& b) { return a.from_s > b.from_s; };
  const auto earlier_end = [](const Window& a, const Window& b) { return a.to_s > b.to_s; };
  starts_.clear();
  active_.clear();
  for (int n : nodes) next_window(n, 0, &starts_);
  if (static_cast<int>(starts_.size()) < need) return std::nullopt;
  std::make_heap(starts_.begin(), starts_.end(), later_start);
  while (!starts_.empty()) {
    std::pop_heap(starts_.begin(), starts_.end(), later_start);
    const Window w = starts_.back();
    starts_.pop_back();
    active_.push_back(w);
    std::push_heap(active_.begin(), active_.end(), earlier_end);
    if (next_window(w.node, w.gap + 1, &starts_)) std::push_heap(starts_.begin(), starts_.end(), later_start);
    const double t = w.from_s;
    if (!starts_.empty() && starts_.front().from_s == t) continue;  // count all starting at t
    while (active_.front().to_s < t) {
      std::pop_heap(active_.begin(), active_.end(), earlier_end);
      active_.pop_back();
    }
    if (static_cast<int>(active_.size()) < need) continue;
    Placement p;  // the lowest-numbered nodes free then
    p.shares.reserve(active_.size());
    for (const Window& a : active_) p.shares.push_back({a.node, 0});
    std::sort(p.shares.begin(), p.shares.end(), [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
    p.shares.resize(need);
    int left = gpus;
    for (auto& share : p.shares) left -= share.gpus = std::min(left, PerNode(share.node));
    return Slot{t, std::move(p)};
  }
  return std::nullopt;
}

}  // namespace paratune
