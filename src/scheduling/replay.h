// Replay: the discrete-event simulation of a job trace on a cluster under one policy. Events
// are submissions, completions (exact: a job's run time is known, as trace-driven simulators
// assume) and wake-ups a policy asks for; after each instant's events the policy schedules.
// The Scheduler is what a policy sees and acts through: the pending queue in its order, the
// running jobs by end time, the free GPUs (ClusterState), and Start / Preempt / Migrate, which
// keep the accounting of checkpoints and lost work in one place (docs/cluster.md, "Preemption").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <tuple>
#include <vector>

#include "scheduling/cluster_state.h"
#include "scheduling/job.h"
#include "scheduling/replay_result.h"
#include "scheduling/speed_model.h"
#include "util/progress.h"

namespace paratune {

class Policy;
struct SlurmConfig;
struct KueueConfig;

struct ReplayOptions {
  // A running job may be preempted only after this long in its current run: Meta's research
  // clusters make jobs eligible for preemption after two hours (Kokolis et al., "Revisiting
  // Reliability in Large-Scale Machine Learning Research Clusters", HPCA 2025, Section VI).
  double min_run_s = 7200;
  // A soft-locality job waits this long for a packed placement before it takes a split one:
  // Slurm's max_switch_wait default, 300 s (slurm.conf(5), SchedulerParameters).
  double locality_wait_s = 300;
  // Jobs behind the head that a backfill pass tries: Slurm's bf_max_job_test default, 500
  // (slurm.conf(5), SchedulerParameters).
  int backfill_depth = 500;
  double series_interval_s = 3600;  // 0: no series
  bool record_placements = true;    // keep every placement interval (the Chrome trace)
  // The cluster's slurm.conf, which the `slurm` policy follows (scheduling/slurm_conf.h); null:
  // slurm.conf(5)'s defaults.
  const SlurmConfig* slurm = nullptr;
  // The cluster's Kueue ClusterQueues, which the `kueue` policy follows (scheduling/kueue_config.h);
  // null: no quotas.
  const KueueConfig* kueue = nullptr;
};

// A job that cannot run on this cluster at all (no node type it may use, more GPUs than its
// types have, hard locality wider than a leaf) is taken out before the replay, with its line.
// Throws InputError when every row was skipped (the reader's and these).
// The queueing delay the history recorded (Job::measured_wait_s) over the jobs that have one;
// nullopt when none has.
std::optional<DelayStats> MeasuredQueueDelayOf(const JobTrace& trace);

JobTrace FilterPlaceable(const ClusterTopology& topology, JobTrace trace, const ReplayOptions& options);

struct RunningJob {
  int64_t job = 0;
  Placement placement;
  int type = 0;
  double start_s = 0;
  double overhead_s = 0;  // restart overhead at the start of this run
  double end_s = 0;
  double slowdown = 1;
  int run = 0;
  bool split = false;
};

// The pending queue's order: (class rank, -priority, submit time, id); the class rank is 0 for
// every job unless the policy orders by class (production first), the priority the one the
// history recorded (Job::priority; 0 where it records none, which leaves submission order).
using QueueKey = std::tuple<int, double, double, int64_t>;
// The job a queue entry holds.
inline int64_t QueuedJob(const QueueKey& k) { return std::get<3>(k); }

class Scheduler {
 public:
  Scheduler(const ClusterTopology& topology, const JobTrace& trace, bool by_class, SpeedModel* speed,
            const ReplayOptions& options);

  double now() const { return now_; }
  const ReplayOptions& options() const { return options_; }
  const ClusterState& state() const { return state_; }
  const ClusterTopology& topology() const { return *topology_; }
  const Job& job(int64_t id) const { return (*jobs_)[id]; }
  const std::set<QueueKey>& pending() const { return pending_; }
  const std::map<int64_t, RunningJob>& running() const { return running_; }
  // Running jobs by predicted end: (end_s, job).
  const std::set<std::pair<double, int64_t>>& running_by_end() const { return by_end_; }
  // Seconds the job has been pending since it last entered the queue.
  double waited_s(int64_t id) const { return now_ - queued_since_[id]; }
  double remaining_work_s(int64_t id) const { return remaining_s_[id]; }
  // Wall time a run of the job on this placement would take (restart overhead included).
  double RunTime(int64_t id, const Placement& p);
  double Slowdown(int64_t id, const Placement& p);
  // Whether the cost model priced the job on this placement (it carries a model and the node
  // type is in the catalog).
  bool Modelled(int64_t id, const Placement& p);
  // Work a preemption now would lose, in GPU-seconds (0 for a job not running).
  double LossIfStopped(int64_t id) const;
  bool Preemptible(int64_t id) const;  // experimental and past min_run_s in its current run
  // Bumped whenever GPUs are freed other than by a predicted completion (preemption,
  // migration): a reservation computed before is stale.
  int64_t disruptions() const { return disruptions_; }
  // Submissions and completions so far: a policy that schedules periodically (Slurm's backfill)
  // skips a pass when nothing arrived or ended since its last.
  int64_t events() const { return events_; }

  void Start(int64_t id, const Placement& p);
  void Preempt(int64_t id);
  // Stops a job for the consolidation pass and starts it again at once on `to`.
  void Migrate(int64_t id, const Placement& to);
  void WakeAt(double t);

  // The replay driver (replay.cc).
  ReplayResult Run(Policy& policy, Progress* progress);

 private:
  void Stop(int64_t id, IntervalEnd why);
  void Finish(int64_t id);
  void Account(double until);
  void Sample(double t);
  int FragmentedGpus() const;
  QueueKey KeyOf(const Job& j, int64_t id) const;

  const ClusterTopology* topology_;
  const std::vector<Job>* jobs_;
  bool by_class_;
  SpeedModel* speed_;
  ReplayOptions options_;
  ClusterState state_;
  double now_ = 0;
  std::set<QueueKey> pending_;
  std::map<int64_t, RunningJob> running_;
  std::set<std::pair<double, int64_t>> by_end_;
  std::vector<double> queued_since_, remaining_s_;
  std::vector<char> restarting_;  // the next start pays the restart overhead
  std::vector<int> runs_;
  std::priority_queue<double, std::vector<double>, std::greater<double>> wakes_;
  int64_t disruptions_ = 0;
  int64_t events_ = 0;
  int64_t queued_gpus_ = 0;
  ReplayResult result_;
  // Time integrals.
  double last_t_ = 0;
  double allocated_gpu_s_ = 0, fragmented_gpu_s_ = 0, fragmented_share_s_ = 0, pending_s_ = 0;
  double partial_nodes_s_ = 0, partial_domains_s_ = 0;
  double next_sample_s_ = 0;
  double restart_gpu_s_ = 0;
};

ReplayResult Replay(const ClusterTopology& topology, const JobTrace& trace, Policy& policy, SpeedModel* speed,
                    const ReplayOptions& options, Progress* progress = nullptr);

}  // namespace paratune
