// SlurmProfile: the backfill scheduler's view of the future, node by node: the GPUs each running
// job holds until its expected end (its start plus its time limit, as Slurm's backfill assumes)
// and the GPUs each reservation of a pending job will hold. It answers what a backfill pass asks
// (src/plugins/sched/backfill/backfill.c in SchedMD/slurm; slurm.conf(5) bf_*): which nodes a job
// may use now without touching a reservation, and the earliest time and nodes at which a job can
// start without touching the running jobs and the reservations made before it.
#pragma once

#include <optional>
#include <vector>

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
  // for a job of one node fewer than `gpus` GPUs free throughout, for a wider one not wholly free.
  std::vector<char> Excluded(const std::vector<int>& types, int gpus, double duration_s) const;

  // The earliest start at or after now, before `horizon_s`, at which the job's GPUs are free for
  // `duration_s` on nodes of `types` (one node for a job of at most a node, else whole nodes, all
  // under one leaf switch when `within_leaf` and a leaf is that large), and those nodes; nullopt
  // when there is none before the horizon.
  struct Slot {
    double start_s = 0;
    Placement placement;
  };
  std::optional<Slot> Earliest(const std::vector<int>& types, int gpus, double duration_s, double horizon_s,
                               bool within_leaf = false) const;

 private:
  struct Hold_ {
    double from_s, to_s;
    int gpus;
  };
  int PerNode(int node) const;
  // Whether `gpus` GPUs of the node are free at every time in [from_s, to_s).
  bool FreeOver(int node, int gpus, double from_s, double to_s) const;
  // The earliest t in [now, before_s) at which `gpus` GPUs of the node are free over [t, t + duration).
  double EarliestOnNode(int node, int gpus, double duration_s, double before_s) const;

  const ClusterTopology* topology_;
  double now_ = 0;
  std::vector<std::vector<Hold_>> holds_;  // per node
  // Per node, computed when asked and dropped when a hold is added: the times holds end after
  // now (sorted), and the intervals in which the node is wholly free (sorted).
  mutable std::vector<std::vector<double>> ends_by_node_;
  mutable std::vector<std::vector<std::pair<double, double>>> gaps_;
  mutable std::vector<char> cached_;
  void Cache(int node) const;
  struct Window {
    double from_s, to_s;
    int node;
  };
  mutable std::vector<Window> windows_;
  mutable std::vector<double> ends_;
  int max_leaf_nodes_ = 0;
  // The earliest start covered by `need` of the windows [first, last) (sorted by start), before
  // `horizon_s`, on the lowest-numbered of the nodes free then.
  std::optional<Slot> Sweep(std::vector<Window>::iterator first, std::vector<Window>::iterator last, int need, int gpus,
                            double horizon_s) const;
};

}  // namespace paratune
