// SlurmConfig: what of a cluster's slurm.conf (slurm.conf(5), https://slurm.schedmd.com/slurm.conf.html)
// the replay's `slurm` policy follows: the scheduler (sched/backfill or sched/builtin) and its
// backfill parameters, the priority/multifactor weights, preemption between partitions, the
// topology plugin's placement, and the partitions' priority factors, tiers and time limits.
// Keys it does not use are ignored (a slurm.conf has hundreds); a value it uses that is not
// one Slurm accepts is one error naming the file, line and key. docs/cluster.md, "Slurm".
#pragma once

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/job.h"
#include "scheduling/slurm_qos.h"

namespace paratune {

enum class SlurmScheduler { kBackfill, kBuiltin };        // SchedulerType=sched/...
enum class SlurmPlacement { kFlat, kTree, kBlock };       // TopologyPlugin=topology/...
enum class SlurmPreempt { kOff, kPartitionPrio, kQos };   // PreemptType=preempt/...
enum class SlurmPreemptMode { kOff, kRequeue, kCancel };  // PreemptMode=...

struct SlurmPartition {
  std::string name;
  double priority_job_factor = 1;                               // PriorityJobFactor (default 1)
  int priority_tier = 1;                                        // PriorityTier (default 1)
  double max_time_s = std::numeric_limits<double>::infinity();  // MaxTime (default UNLIMITED)
  bool is_default = false;                                      // Default=YES
};

struct SlurmConfig {
  std::string path;
  SlurmScheduler scheduler = SlurmScheduler::kBackfill;  // slurm.conf(5) default: sched/backfill
  bool multifactor = true;  // PriorityType default priority/multifactor; priority/basic: submit order
  // PriorityWeight* (default 0) and PriorityMaxAge (default 7-0): priority_multifactor.html.
  double weight_age = 0, weight_fairshare = 0, weight_job_size = 0, weight_partition = 0, weight_qos = 0;
  double max_age_s = 7 * 86400;
  bool favor_small = false;  // PriorityFavorSmall
  // SchedulerParameters (slurm.conf(5) defaults): bf_max_job_test=500, bf_interval=30 s,
  // bf_window=1440 min, max_switch_wait=300 s, default_queue_depth=100.
  int bf_max_job_test = 500;
  double bf_interval_s = 30;
  double bf_window_s = 1440 * 60;
  double max_switch_wait_s = 300;
  int default_queue_depth = 100;
  SlurmPreempt preempt = SlurmPreempt::kOff;
  SlurmPreemptMode preempt_mode = SlurmPreemptMode::kOff;
  double preempt_exempt_time_s = 0;                  // PreemptExemptTime (default 0)
  SlurmPlacement placement = SlurmPlacement::kFlat;  // TopologyPlugin default: none (flat)
  bool exclusive_nodes = false;  // SelectType=select/linear, or every partition OverSubscribe=EXCLUSIVE
  std::vector<SlurmPartition> partitions;
  // The accounting database's QOS table (--slurm-qos), which PreemptType=preempt/qos follows;
  // empty: no job preempts under preempt/qos.
  std::vector<SlurmQos> qos;

  // The partition of that name, else the default one, else nullptr.
  const SlurmPartition* Partition(const std::string& name) const;
  // The QOS of that name (not case-sensitive), else nullptr.
  const SlurmQos* Qos(std::string_view name) const;
  int MaxTier() const;
};

// Slurm's time strings (slurm.conf(5) MaxTime, sacct's Timelimit and Elapsed): "minutes",
// "minutes:seconds", "hours:minutes:seconds", "days-hours", "days-hours:minutes",
// "days-hours:minutes:seconds"; "UNLIMITED"/"INFINITE" is infinity. NaN when it is none of them.
double SlurmTimeSeconds(std::string_view text);

// Throws InputError naming `where`, the line and the key.
SlurmConfig ParseSlurmConf(std::string_view text, const std::string& where);
SlurmConfig ReadSlurmConf(const std::string& path);
// The file's text (a regular file, gzip or plain, at most 64 MiB); throws InputError naming it.
std::string ReadSlurmConfText(const std::string& path);

// The trace as this configuration's scheduler sees it (docs/cluster.md, "Slurm"): each job's
// class from its partition's PriorityTier (the highest tier is production: evaluated first and,
// with PreemptType=preempt/partition_prio, preempting lower tiers), its time limit (capped by the
// partition's MaxTime), and under priority/multifactor a queue priority whose order among the
// pending jobs at any time is the multifactor priority's: the recorded Priority less the age
// factor it had gained at its start, plus W_age x (now - eligible) / PriorityMaxAge.
void ApplySlurmConfig(const SlurmConfig& config, int total_gpus, JobTrace* trace);

}  // namespace paratune
