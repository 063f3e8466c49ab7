// What a replay of a job trace under one policy produced: one record per job, the placements
// over time (for the Chrome trace), the sampled series (for the CSV) and the cluster metrics
// (for the summary and paratune.cluster/1). docs/cluster.md defines every figure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scheduling/job.h"

namespace paratune {

struct JobRecord {
  int64_t job = 0;
  double first_start_s = -1;  // -1: never ran
  double finish_s = -1;       // -1: not finished
  double queue_s = 0;         // time pending: before the first run and after each preemption
  int runs = 0;               // starts (1 + preemptions + migrations, when finished)
  int preemptions = 0;
  int migrations = 0;          // moved by the consolidation pass
  double lost_gpu_s = 0;       // GPU-seconds of work lost to preemptions and migrations
  double allocated_gpu_s = 0;  // GPU-seconds held, restarts and lost work included
  int split_runs = 0;          // runs on a split placement
  double slowdown = 1;         // of the first run's placement (1 = packed speed)
  double mfu = 0;              // modelled MFU on the first run's placement (0 when not modelled)
  bool modelled = false;
  std::string layout;  // the layout priced (modelled jobs)
  std::string note;    // why the first run's placement is slower
};

enum class IntervalEnd { kFinished, kPreempted, kMigrated };
inline constexpr EnumNames<IntervalEnd, 3> kIntervalEndNames{{{{IntervalEnd::kFinished, "finished"},
                                                               {IntervalEnd::kPreempted, "preempted"},
                                                               {IntervalEnd::kMigrated, "migrated"}}},
                                                             3};

// One share of one run of a job on one node.
struct PlacementInterval {
  int64_t job = 0;
  int node = 0;
  int gpus = 0;
  double start_s = 0, end_s = 0;
  int run = 0;  // 0-based run index of the job
  bool split = false;
  double slowdown = 1;
  IntervalEnd end = IntervalEnd::kFinished;
};

// The cluster at one sample time (the state just before any event at that time).
struct SeriesSample {
  double time_s = 0;
  int allocated_gpus = 0;
  int queue_length = 0;  // jobs pending
  int queued_gpus = 0;   // GPUs they ask for
  int running_jobs = 0;
  int fragmented_gpus = 0;  // free GPUs that cannot host the next pending job
  int partial_nodes = 0;    // nodes with some but not all GPUs free
  int partial_domains = 0;  // NVLink domains with some but not all GPUs free
};

struct DelayStats {
  int64_t count = 0;
  double mean = 0, p50 = 0, p99 = 0, p999 = 0;
  // The distribution at p = 0, 0.05, ..., 1 (kCdfPoints values; empty without data): the
  // report's CDF.
  std::vector<double> cdf;
};
inline constexpr int kCdfPoints = 21;
// The statistics of a set of delays (replay.cc).
DelayStats DelayStatsOf(std::vector<double> v);

struct ClassMetrics {
  std::string job_class;
  int64_t jobs = 0;
  DelayStats queue_delay_s;
  DelayStats jct_s;
  DelayStats time_to_first_run_s;
  int64_t preemptions = 0;
  double lost_gpu_hours = 0;
};

struct Fragmentation {
  double mean_fragmented_gpus = 0;      // time-weighted, while a job was pending
  double fragmented_share_of_free = 0;  // time-weighted fragmented / free, while a job was pending
  double mean_partial_nodes = 0;        // time-weighted over the makespan
  double mean_partial_domains = 0;
  double pending_time_share = 0;  // share of the makespan with a job pending
};

struct PolicyMetrics {
  std::string policy;
  int64_t jobs = 0;
  int64_t jobs_finished = 0;
  double makespan_s = 0;          // first submit (0) to last finish
  double capacity_gpu_hours = 0;  // GPUs x makespan
  double allocated_gpu_hours = 0;
  double utilization = 0;        // allocated / capacity
  double useful_gpu_hours = 0;   // work done at packed speed, lost work excluded
  double goodput = 0;            // useful / capacity
  double lost_gpu_hours = 0;     // to preemptions and migrations
  double restart_gpu_hours = 0;  // restart overhead paid after preemptions and migrations
  int64_t preemptions = 0;
  int64_t migrations = 0;
  int64_t split_placements = 0;      // runs on a split placement
  int64_t split_placements_le8 = 0;  // of jobs of <= 8 GPUs placed across nodes
  double mean_slowdown = 1;          // GPU-time-weighted slowdown of modelled runs
  bool models = false;               // some job carried a model
  double effective_mfu = 0;          // sum of useful GPU-s x packed MFU / capacity GPU-s
  double mean_ettr = 0;              // mean over finished jobs of run_s / (finish - first start)
  DelayStats queue_delay_s;
  DelayStats jct_s;
  DelayStats time_to_first_run_s;
  std::vector<ClassMetrics> by_class;  // production, experimental (classes present)
  Fragmentation fragmentation;
  int price_cache_entries = 0;
};

struct ReplayResult {
  PolicyMetrics metrics;
  std::vector<JobRecord> jobs;                // by job id
  std::vector<PlacementInterval> placements;  // in start order (when recorded)
  std::vector<SeriesSample> series;           // every series_interval_s (when > 0)
};

}  // namespace paratune
