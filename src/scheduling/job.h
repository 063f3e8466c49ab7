// Job: one entry of a cluster job trace, in the units the replay uses: when it was submitted,
// how many GPUs it asks for, how long it runs on an ideal (packed) placement, its priority
// class, how often it checkpoints and what a restart costs, how strictly it wants locality, and
// optionally the model (and layout) the cost model prices its placements with.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "util/enum_names.h"

namespace paratune {

enum class JobClass { kProduction, kExperimental };
inline constexpr EnumNames<JobClass, 4> kJobClassNames{{{{JobClass::kProduction, "production"},
                                                         {JobClass::kExperimental, "experimental"},
                                                         {JobClass::kProduction, "prod"},
                                                         {JobClass::kExperimental, "exp"}}},
                                                       2};
inline const char* JobClassName(JobClass c) { return kJobClassNames.Name(c); }

// Hard: the job waits for a packed placement: the fewest nodes, inside one NVLink domain or one
// leaf when one can hold it, else the fewest leaves. Soft: it prefers that, and after waiting
// ReplayOptions::locality_wait_s takes a split placement when that finishes sooner.
enum class Locality { kSoft, kHard };
inline constexpr EnumNames<Locality, 2> kLocalityNames{{{{Locality::kSoft, "soft"}, {Locality::kHard, "hard"}}}, 2};
inline const char* LocalityName(Locality l) { return kLocalityNames.Name(l); }

struct Job {
  int64_t id = 0;       // index in the trace's job list (0-based, in reading order)
  int line = 0;         // line of the trace where the job is
  std::string name;     // from the trace, or "job-<line>"
  double submit_s = 0;  // seconds from the trace's start (the earliest submit is not moved)
  int gpus = 0;
  double run_s = 0;  // run time on a packed placement, without restarts
  JobClass job_class = JobClass::kExperimental;
  double checkpoint_interval_s = 0;  // 0: never checkpoints (a preemption loses everything)
  double restart_overhead_s = 0;     // paid at every start after a preemption
  Locality locality = Locality::kSoft;
  std::string gpu_type;  // node type's GPU the job must run on; empty: any
  std::string model;     // catalog model id; empty: not priced (slowdown 1 on any placement)
  int tp = 0, pp = 0;    // the job's layout; 0: the planner's choice for its GPU count
  // The scheduler's priority the history recorded, higher first among the pending jobs of one
  // class (scheduling/replay.h QueueKey): Slurm's Priority (sacct; the priority/multifactor
  // value), Kueue's spec.priority (the WorkloadPriorityClass value); 0 where the trace has none,
  // which leaves the queue in submission order.
  double priority = 0;
  // The queue the job was submitted to: Slurm's Partition, Kueue's ClusterQueue; empty where the
  // trace names none. Scheduler configurations (Slurm partitions, Kueue quotas) are keyed by it.
  std::string queue;
  std::string qos;  // Slurm's QOS; empty where none
  // The run time the job asked for (Slurm's Timelimit): what a scheduler's reservations assume,
  // as the real one does; NaN where the trace has none (the replay then assumes its run time).
  double time_limit_s = std::numeric_limits<double>::quiet_NaN();
  // The queueing delay the history itself recorded (Slurm: Start - Eligible; Alibaba:
  // scheduled_time - creation_time), to set beside the replay's; NaN where the trace has none.
  double measured_wait_s = std::numeric_limits<double>::quiet_NaN();
};

struct SkippedRow {
  int line = 0;
  std::string reason;
};

struct JobTrace {
  std::string path;
  std::string format;     // kJobTraceFormatNames (scheduling/job_history_reader.h)
  std::vector<Job> jobs;  // in reading order; ids 0..n-1
  std::vector<SkippedRow> skipped;
};

}  // namespace paratune
