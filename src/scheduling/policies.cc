#include <fmt/format.h>

#include "scheduling/policy.h"
#include "util/error.h"

namespace paratune {

const std::vector<PolicyInfo>& Policies() {
  static const std::vector<PolicyInfo> kPolicies = {
      {"fifo", "FIFO first fit: strict submit order, the first free GPUs wherever they are (baseline)",
       &MakeFifoPolicy},
      {"topo", "topology-aware best fit with EASY backfill: fewest nodes, domains and leaves, big jobs reserved",
       &MakeTopoPolicy},
      {"topo-preempt",
       "topo, production first; production jobs preempt experimental ones (whole jobs, least lost work)",
       &MakeTopoPreemptPolicy},
      {"topo-defrag", "topo-preempt with a consolidation pass that migrates small jobs to free whole nodes",
       &MakeDefragPolicy},
      {"slurm",
       "Slurm's scheduler under the cluster's slurm.conf (--slurm-conf): priority order, main scheduler, backfill "
       "with reservations at time limits, TopologyPlugin placement, partition preemption",
       &MakeSlurmPolicy},
      {"kueue",
       "Kueue's admission under the cluster's ClusterQueues (--kueue-config): quotas, cohorts and borrowing, "
       "reclaim and priority preemption, topology-aware pod sets",
       &MakeKueuePolicy},
  };
  return kPolicies;
}

const PolicyInfo& FindPolicy(const std::string& name) {
  std::string known;
  for (const auto& p : Policies()) {
    if (name == p.name) return p;
    known += known.empty() ? p.name : std::string(", ") + p.name;
  }
  throw InputError(fmt::format("--policy: unknown policy '{}' (known: {})", name, known));
}

}  // namespace paratune
