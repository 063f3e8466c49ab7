// KueueConfig: what of a Kubernetes cluster's Kueue ClusterQueues (`kubectl get clusterqueues -o
// json`, Kueue's ClusterQueue API, kueue.x-k8s.io/v1beta1 and v1beta2) the replay's `kueue` policy
// follows: each queue's GPU quota (nvidia.com/gpu or amd.com/gpu nominalQuota over its flavors),
// its cohort and the borrowing and lending limits, its queueing strategy, and its preemption
// (https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/). docs/cluster.md, "Kueue".
#pragma once

#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace paratune {

enum class KueueReclaim { kNever, kLowerPriority, kAny };                       // preemption.reclaimWithinCohort
enum class KueueWithin { kNever, kLowerPriority, kLowerOrNewerEqualPriority };  // withinClusterQueue

struct KueueClusterQueue {
  std::string name;
  std::string cohort;  // spec.cohort (v1beta1) or spec.cohortName (v1beta2); empty: none
  int64_t nominal_gpus = 0;
  // The GPUs it may borrow from its cohort beyond its quota, and lend to it; absent: no limit.
  int64_t borrowing_limit_gpus = std::numeric_limits<int64_t>::max();
  int64_t lending_limit_gpus = std::numeric_limits<int64_t>::max();
  bool strict_fifo = false;  // queueingStrategy StrictFIFO (default BestEffortFIFO)
  KueueReclaim reclaim = KueueReclaim::kNever;
  KueueWithin within = KueueWithin::kNever;

  // The part of the quota only this queue may use: nominal less what it lends.
  int64_t guaranteed_gpus() const;
};

struct KueueConfig {
  std::string path;
  std::vector<KueueClusterQueue> queues;
  // The queue of that name; nullptr when none.
  const KueueClusterQueue* Find(std::string_view name) const;
};

// A List of ClusterQueues, or one. Throws InputError naming `where` and the queue or field.
KueueConfig ParseKueueConfig(std::string_view json, const std::string& where);
KueueConfig ReadKueueConfig(const std::string& path);

}  // namespace paratune
