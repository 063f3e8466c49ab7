// ClusterRequest: what `paratune cluster` and paratune.cluster.replay() are asked (the job trace,
// the cluster as nodes of a GPU or a cluster file, the policies, the defaults for jobs that give
// none, the replay's options), and RunCluster, which reads the trace, keeps the jobs the cluster
// can place, and replays it under each policy with placements priced by the cost model. One
// definition for the CLI and the Python module.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scheduling/cluster_json.h"
#include "scheduling/replay.h"
#include "scenario/default_scenario.h"
#include "util/progress.h"

namespace paratune {

struct ClusterRequest {
  std::string trace;         // the job trace file (Philly-derived, Alibaba v2023, native CSV; .gz)
  std::string format;        // "" = detected from the header
  std::optional<int> nodes;  // nodes of `gpu`'s reference system, or
  std::string gpu;           // "" = kDefaultGpu with --nodes; required with a Slurm topology.conf
  std::string cluster_file;  // a cluster TOML, an Alibaba v2023 node list or a Slurm topology.conf
  std::string policies = "fifo,topo,topo-preempt";             // comma-separated
  std::string model;                                           // catalog model for jobs that give none
  std::string production_vcs;                                  // Philly: comma-separated production virtual clusters
  std::string locality;                                        // soft or hard, for jobs that give none
  double checkpoint_interval_s = -1, restart_overhead_s = -1;  // < 0: the trace defaults
  ReplayOptions options;                                       // record_placements: keep them for the Chrome trace
  // The cluster's slurm.conf ("" = none): it sets the queue order, classes and time limits of
  // the jobs (ApplySlurmConfig) for every policy, and the `slurm` policy follows it.
  std::string slurm_conf;
  // What-ifs of the `slurm` policy: slurm.conf lines of keys that change the scheduler, not the
  // jobs ("TopologyPlugin=topology/block", "SchedulerType=sched/builtin"), each replayed as a
  // policy named slurm[LINE] beside it.
  std::vector<std::string> slurm_what_ifs;
  // The accounting database's QOS table (`sacctmgr -P show qos format=Name,Preempt,PreemptMode,
  // PreemptExemptTime`; "" = none), which the `slurm` policy's PreemptType=preempt/qos follows.
  std::string slurm_qos;
  // The cluster's Kueue ClusterQueues (`kubectl get clusterqueues -o json`; "" = none), which the
  // `kueue` policy follows.
  std::string kueue_config;
  Progress* progress = nullptr;
};

// The replay and what its ClusterRun points to.
struct ClusterReplay {
  std::unique_ptr<ClusterTopology> topology;
  std::unique_ptr<JobTrace> trace;
  ClusterRun run;
};

// Throws InputError for bad input (naming the flag, file or row).
ClusterReplay RunCluster(const ClusterRequest& r);

}  // namespace paratune
