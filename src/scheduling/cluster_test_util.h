// Small clusters and jobs for the scheduling room's tests.
#pragma once

#include <string>
#include <vector>

#include "scheduling/job.h"
#include "scheduling/topology.h"

namespace paratune::testing {

// `nodes` unpriced nodes of `gpus` GPUs, `per_leaf` nodes per leaf (0: one leaf).
inline ClusterTopology SmallCluster(int nodes, int gpus = 8, int per_leaf = 0, int per_domain = 1) {
  NodeType t;
  t.name = "test";
  t.gpu = "TEST";
  t.count = nodes;
  t.fabric.gpus_per_node = gpus;
  t.fabric.nodes_per_leaf = per_leaf;
  t.fabric.nvlink_domain = gpus * per_domain;
  return BuildTopology({t});
}

inline Job MakeJob(double submit_s, int gpus, double run_s, JobClass c = JobClass::kExperimental,
                   double checkpoint_s = 0, double restart_s = 0, Locality l = Locality::kSoft) {
  Job j;
  j.submit_s = submit_s;
  j.gpus = gpus;
  j.run_s = run_s;
  j.job_class = c;
  j.checkpoint_interval_s = checkpoint_s;
  j.restart_overhead_s = restart_s;
  j.locality = l;
  return j;
}

inline JobTrace MakeJobTrace(std::vector<Job> jobs) {
  JobTrace t;
  t.path = "test";
  t.format = "native";
  for (size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].id = static_cast<int64_t>(i);
    jobs[i].line = static_cast<int>(i) + 2;
    jobs[i].name = "j" + std::to_string(i);
  }
  t.jobs = std::move(jobs);
  return t;
}

}  // namespace paratune::testing
