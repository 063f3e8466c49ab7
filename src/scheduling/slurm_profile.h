// SlurmProfile: the backfill scheduler's view of the future, node by node: the GPUs each running
// job holds until its expected end (its start plus its time limit, as Slurm's backfill assumes)
// and the GPUs each reservation of a pending job will hold. It answers what a backfill pass asks
// (src/plugins/sched/backfill/backfill.c in SchedMD/slurm; slurm.conf(5) bf_*): which nodes a job
// may use now without touching a reservation, and the earliest time and nodes at which a job can
// start without touching the running jobs and the reservations made before it.
#pragma once

#include <cmath>
#include <optional>
#include <vector>

#include "scheduling/cluster_state.h"
#include "scheduling/placement.h"
#include "scheduling/topology.h"

namespace paratune {

class SlurmProfile {
 public:
  explicit SlurmProfile(const ClusterTopology& topology);
  // Forgets every hold; the profile starts at `now` (its buffers are kept for the next pass).
  void Reset(double now);

  // `gpus` GPUs of `node` held over [from_s, to_s).
  void Hold(int node, int gpus, double from_s, double to_s);
  void Hold(const Placement& p, double from_s, double to_s);

  // Nodes of `types` (node types) that cannot give the job its GPUs over [now, now + duration):
  // for a job of one node fewer than `gpus` GPUs free throughout, for a wider one not wholly free
  // (valid until the next call). `state`, where given, is the cluster now, whose running jobs
  // (and those started since the profile's now) the profile holds.
  const std::vector<char>& Excluded(const std::vector<int>& types, int gpus, double duration_s,
                                    const ClusterState* state = nullptr) const;

  // Whether the node can give the job its GPUs over [now, now + duration) (Excluded's answer for
  // one node of the types).
  bool FitsNode(int node, int gpus, double duration_s) const {
    const int per = PerNode(node);
    return FreeUntil(node, gpus <= per ? gpus : per, now_ + duration_s);
  }

  // How Earliest searches for a job of `gpus` GPUs on nodes of `types`.
  enum class Search { kOneNode, kWholeNodesInLeaf, kWholeNodes };
  Search SearchFor(const std::vector<int>& types, int gpus, bool within_leaf) const;

  // The earliest start at or after now, before `horizon_s`, at which the job's GPUs are free for
  // `duration_s` on nodes of `types` (one node for a job of at most a node, else whole nodes, all
  // under one leaf switch when `within_leaf` and a leaf is that large), and those nodes; nullopt
  // when there is none before the horizon. `not_before_s` is a start the caller knows the answer
  // cannot precede (a job asking no more GPUs for no longer got it on fewer holds): the search
  // starts there, the answer is the same.
  struct Slot {
    double start_s = 0;
    Placement placement;
  };
  std::optional<Slot> Earliest(const std::vector<int>& types, int gpus, double duration_s, double horizon_s,
                               bool within_leaf = false, double not_before_s = -INFINITY) const;

 private:
  struct Hold_ {
    double from_s, to_s;
    int gpus;
  };
  // The GPUs a node has held from a time on, until the next step (the last step holds none).
  struct Step {
    double t;
    int used;
  };
  // A node's holds as the searches read them, computed when first asked in a pass and updated
  // as holds are added: its steps from now, the first time each count of GPUs is free
  // (first_free[g], g = 0..per node), and the intervals in which it is wholly free (sorted; the
  // last one open). A view carried from an earlier pass keeps that pass's now as its first
  // time (its first step, a first-free time, its first gap's start): every reader takes times
  // from now on, where such a time reads as now.
  struct NodeView {
    std::vector<Step> steps;
    std::vector<double> first_free;
    std::vector<std::pair<double, double>> gaps;
  };
  int PerNode(int node) const { return per_node_[node]; }
  void UseTypes(const std::vector<int>& types) const;
  const NodeView& View(int node) const { return view_of_[node] ? *view_of_[node] : Compute(node); }
  const NodeView& Compute(int node) const;
  // The steps of `holds` from now.
  void BuildSteps(const std::vector<Hold_>& holds, std::vector<Step>* steps) const;
  // Its first-free times and gaps from its steps.
  void Summarize(int node, NodeView* v) const;
  // The same after a hold over [from, to) was added to its steps (steps[at] holds from_s).
  void Update(int node, NodeView* v, size_t at, double from_s, double to_s) const;
  bool SameAfterNow(const std::vector<Hold_>& a, const std::vector<Hold_>& b) const;
  // Whether `gpus` GPUs of the node are free at every time in [now, to_s).
  bool FreeUntil(int node, int gpus, double to_s) const {
    const int room = PerNode(node) - gpus;
    if (room < 0) return false;
    for (const Step& s : View(node).steps) {
      if (s.t >= to_s) break;
      if (s.used > room) return false;
    }
    return true;
  }
  // The earliest t in [from_s, before_s) at which `gpus` GPUs of the node are free over
  // [t, t + duration); infinity when none.
  double EarliestOnNode(int node, int gpus, double duration_s, double from_s, double before_s) const;
  std::optional<Slot> EarliestOnOneNode(int gpus, double duration_s, double horizon_s, double from_s) const;
  std::optional<Slot> EarliestOnWholeNodes(int per, int gpus, double duration_s, double horizon_s, bool within_leaf,
                                           double from_s) const;

  const ClusterTopology* topology_;
  std::vector<int> per_node_;  // GPUs per node
  double now_ = 0;
  std::vector<std::vector<Hold_>> holds_;  // per node
  mutable std::vector<NodeView> views_;
  // Each node's first view in the pass, the holds it was computed from and when: the next pass
  // starts from it where the node's holds are the same from its now on.
  struct Base {
    std::vector<Hold_> holds;
    double now_s = INFINITY;
    NodeView view;
  };
  mutable std::vector<Base> bases_;
  // The node's view in the pass: its base's, or views_[node] once the pass added holds to it; null
  // before it is first asked.
  mutable std::vector<const NodeView*> view_of_;
  std::vector<std::vector<int>> leaf_nodes_;  // the nodes under each leaf, ascending
  // Per leaf, the times its widest nodes of the types asked are first wholly free (sorted), and
  // whether a node's view changed since they were read.
  mutable std::vector<std::vector<double>> leaf_first_free_;
  mutable std::vector<char> leaf_changed_;
  // A leaf to read in EarliestOnWholeNodes: the start it cannot precede, `full` once the bounds
  // of earlier searches (leaf_bounds_) are in it.
  struct LeafKey {
    double bound_s;
    int leaf;
    bool full;
  };
  static bool LaterLeaf(const LeafKey& a, const LeafKey& b) {
    return a.bound_s != b.bound_s ? a.bound_s > b.bound_s : a.leaf > b.leaf;
  }
  mutable std::vector<LeafKey> leaf_heap_;  // a heap by LaterLeaf
  // The leaves with `need` whole nodes of the types, by the time that many are first wholly free
  // (from from_s on, before the horizon).
  void LeafHeap(int per, int need, double from_s, double horizon_s) const;
  // Per leaf, the earliest starts (or a time before which there is none) found in it in this
  // pass for jobs of the types asked, the latest kLeafBounds: the bound slurm_policy.cc keeps
  // per job size as a full (limit, start) front, here a short list (a front per leaf measured 2%
  // more instructions on the acceptance replay).
  struct LeafBound {
    int need;
    double duration_s, start_s;
  };
  static constexpr size_t kLeafBounds = 32;
  mutable std::vector<std::vector<LeafBound>> leaf_bounds_;
  mutable std::vector<size_t> leaf_bounds_added_;
  // A start window of a job on whole nodes: it may start on `node` at any time in [from_s, to_s],
  // within the node's gap number `gap`.
  struct Window {
    double from_s, to_s;
    int node;
    int gap;
  };
  mutable std::vector<char> excluded_;
  mutable std::vector<int> usable_types_;  // the types last asked for, their nodes, their widest node
  mutable std::vector<char> usable_;
  mutable std::vector<int> usable_nodes_;  // ascending
  mutable int usable_per_max_ = 0;
  mutable std::vector<int> whole_nodes_;  // of those, the widest, and those under each leaf
  mutable std::vector<std::vector<int>> leaf_whole_nodes_;
  mutable std::vector<Window> starts_, active_;  // heaps: by start, by end
  mutable std::vector<std::pair<double, int>> events_;
  int max_leaf_nodes_ = 0;
  // The earliest start before `before_s` at which `need` of `nodes` are wholly free for the
  // duration, on the lowest-numbered of the nodes free then.
  std::optional<Slot> Sweep(const std::vector<int>& nodes, int need, int gpus, double duration_s, double from_s,
                            double before_s) const;
};

}  // namespace paratune
