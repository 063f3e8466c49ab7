#include "scheduling/replay.h"

#include <gtest/gtest.h>

#include <random>

#include "scheduling/cluster_test_util.h"
#include "scheduling/policy.h"
#include "util/test_util.h"

namespace paratune {
namespace {

using testing::MakeJob;
using testing::MakeJobTrace;
using testing::SmallCluster;

ReplayResult RunPolicy(const std::string& policy, const ClusterTopology& topo, const JobTrace& trace,
                       ReplayOptions options = {}) {
  auto p = FindPolicy(policy).make();
  return Replay(topo, trace, *p, nullptr, options);
}

// One node; an experimental job of 8 GPUs running 10,000 s with a checkpoint every 1,000 s and a
// 100 s restart; a production job of 8 GPUs for 2,000 s arrives at 7,500 s. Hand-computed:
// the victim has run 7,500 s, saved 7 checkpoints (7,000 s), loses 500 s x 8 GPUs = 4,000
// GPU-s; it resumes when the production job ends at 9,500 s, pays 100 s and runs the remaining
// 3,000 s: finish 12,600 s, queued 2,000 s.
JobTrace PreemptionCase() {
  return MakeJobTrace({MakeJob(0, 8, 10000, JobClass::kExperimental, 1000, 100),
                       MakeJob(7500, 8, 2000, JobClass::kProduction, 1000, 100)});
}

TEST(Replay, PreemptionLosesTheWorkSinceTheLastCheckpointToTheSecond) {
  ClusterTopology topo = SmallCluster(1);
  ReplayOptions o;
  o.min_run_s = 3600;
  ReplayResult r = RunPolicy("topo-preempt", topo, PreemptionCase(), o);
  const JobRecord& e = r.jobs[0];
  const JobRecord& p = r.jobs[1];
  EXPECT_EQ(e.preemptions, 1);
  EXPECT_DOUBLE_EQ(e.lost_gpu_s, 4000);
  EXPECT_DOUBLE_EQ(e.finish_s, 12600);
  EXPECT_DOUBLE_EQ(e.queue_s, 2000);
  EXPECT_EQ(e.runs, 2);
  EXPECT_DOUBLE_EQ(p.first_start_s, 7500);
  EXPECT_DOUBLE_EQ(p.finish_s, 9500);
  EXPECT_DOUBLE_EQ(p.queue_s, 0);
  EXPECT_DOUBLE_EQ(r.metrics.makespan_s, 12600);
  EXPECT_DOUBLE_EQ(r.metrics.lost_gpu_hours, 4000.0 / 3600);
  EXPECT_DOUBLE_EQ(r.metrics.restart_gpu_hours, 800.0 / 3600);
  // Held: 7,500 + 3,100 s by the victim and 2,000 s by the production job, on 8 GPUs.
  EXPECT_DOUBLE_EQ(r.metrics.allocated_gpu_hours, (7500 + 3100 + 2000) * 8 / 3600.0);
  EXPECT_DOUBLE_EQ(r.metrics.useful_gpu_hours, (10000 + 2000) * 8 / 3600.0);
  EXPECT_DOUBLE_EQ(r.metrics.utilization, (7500 + 3100 + 2000) / 12600.0);
  ASSERT_EQ(r.metrics.by_class.size(), 2u);
  EXPECT_EQ(r.metrics.by_class[0].job_class, "production");
  EXPECT_DOUBLE_EQ(r.metrics.by_class[0].queue_delay_s.p99, 0);
  // The intervals: the victim's first run ends preempted at 7,500 s.
  ASSERT_EQ(r.placements.size(), 3u);
  EXPECT_EQ(r.placements[0].end, IntervalEnd::kPreempted);
  EXPECT_DOUBLE_EQ(r.placements[0].end_s, 7500);
}

TEST(Replay, WithoutPreemptionTheProductionJobWaits) {
  ClusterTopology topo = SmallCluster(1);
  ReplayResult r = RunPolicy("topo", topo, PreemptionCase());
  EXPECT_EQ(r.metrics.preemptions, 0);
  EXPECT_DOUBLE_EQ(r.jobs[1].queue_s, 2500);
  EXPECT_DOUBLE_EQ(r.jobs[1].finish_s, 12000);
  EXPECT_DOUBLE_EQ(r.metrics.lost_gpu_hours, 0);
}

// The recorded priority orders the queue before submission time (Slurm's priority order): on
// one 8-GPU node busy until 1,000 s, job 2 (submitted last, priority 10) starts at 1,000 s,
// then job 1 (priority 0) at 2,000 s; without priorities, submission order (job 1 first).
TEST(Replay, TheRecordedPriorityOrdersTheQueueBeforeSubmission) {
  ClusterTopology topo = SmallCluster(1);
  std::vector<Job> jobs = {MakeJob(0, 8, 1000), MakeJob(10, 8, 1000), MakeJob(20, 8, 1000)};
  jobs[2].priority = 10;
  for (const char* policy : {"fifo", "topo"}) {
    const ReplayResult r = RunPolicy(policy, topo, MakeJobTrace(jobs));
    EXPECT_DOUBLE_EQ(r.jobs[2].first_start_s, 1000) << policy;
    EXPECT_DOUBLE_EQ(r.jobs[1].first_start_s, 2000) << policy;
    EXPECT_DOUBLE_EQ(r.jobs[1].queue_s, 1990) << policy;
  }
  jobs[2].priority = 0;
  const ReplayResult plain = RunPolicy("fifo", topo, MakeJobTrace(jobs));
  EXPECT_DOUBLE_EQ(plain.jobs[1].first_start_s, 1000);
  EXPECT_DOUBLE_EQ(plain.jobs[2].first_start_s, 2000);
}

TEST(Replay, FreshJobsAreProtectedByTheMinimumRunTime) {
  ClusterTopology topo = SmallCluster(1);
  ReplayOptions o;
  o.min_run_s = 8000;  // the victim has run only 7,500 s
  ReplayResult r = RunPolicy("topo-preempt", topo, PreemptionCase(), o);
  EXPECT_EQ(r.metrics.preemptions, 0);
  EXPECT_DOUBLE_EQ(r.jobs[1].queue_s, 2500);
}

TEST(Replay, PreemptionDuringTheRestartLosesNothingMoreAndRefundsTheUnpaidRestart) {
  // The victim is preempted at 7,500 s, resumes at 9,500 s, and a second production job at
  // 9,550 s preempts it again 50 s into its 100 s restart: nothing more lost, 50 s x 8 paid.
  ClusterTopology topo = SmallCluster(1);
  ReplayOptions o;
  o.min_run_s = 0;
  JobTrace t =
      MakeJobTrace({MakeJob(0, 8, 10000, JobClass::kExperimental, 1000, 100),
                    MakeJob(7500, 8, 2000, JobClass::kProduction), MakeJob(9550, 8, 1000, JobClass::kProduction)});
  ReplayResult r = RunPolicy("topo-preempt", topo, t, o);
  EXPECT_EQ(r.jobs[0].preemptions, 2);
  EXPECT_DOUBLE_EQ(r.jobs[0].lost_gpu_s, 4000);
  // Restart paid: 50 s of the interrupted one, 100 s of the last: 150 s x 8.
  EXPECT_DOUBLE_EQ(r.metrics.restart_gpu_hours, 1200.0 / 3600);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_s, 10550 + 100 + 3000);
}

TEST(Replay, FifoSplitsWhatTopologyAwarePlacementKeepsOnOneNode) {
  // Two nodes; a 4-GPU job and an 8-GPU job arrive together, then a 4-GPU job.
  ClusterTopology topo = SmallCluster(2);
  JobTrace t = MakeJobTrace({MakeJob(0, 4, 100), MakeJob(0, 8, 100), MakeJob(0, 4, 100)});
  ReplayResult fifo = RunPolicy("fifo", topo, t);
  EXPECT_EQ(fifo.metrics.split_placements_le8, 1);
  EXPECT_EQ(fifo.jobs[1].split_runs, 1);
  ReplayResult topo_r = RunPolicy("topo", topo, t);
  EXPECT_EQ(topo_r.metrics.split_placements, 0);
  EXPECT_DOUBLE_EQ(topo_r.jobs[2].first_start_s, 0);  // beside the first 4-GPU job
  // FIFO took node 0's last 4 GPUs and node 1's first 4 for the 8-GPU job.
  ASSERT_EQ(fifo.placements.size(), 4u);
  EXPECT_TRUE(fifo.placements[1].split || fifo.placements[0].split);
}

TEST(Replay, EasyBackfillStartsShortJobsWithoutDelayingTheHead) {
  // One node. A (6 GPUs, 0-100 s); B (4 GPUs) at 1 s is blocked until 100 s; C (2 GPUs, 50 s)
  // at 2 s ends before B's reservation and backfills; D (2 GPUs, 200 s) at 3 s would delay B.
  ClusterTopology topo = SmallCluster(1);
  JobTrace t = MakeJobTrace({MakeJob(0, 6, 100), MakeJob(1, 4, 100), MakeJob(2, 2, 50), MakeJob(3, 2, 200)});
  ReplayResult r = RunPolicy("topo", topo, t);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start_s, 100);
  EXPECT_DOUBLE_EQ(r.jobs[2].first_start_s, 2);
  EXPECT_DOUBLE_EQ(r.jobs[3].first_start_s, 100);  // beside B when A ends
  ReplayResult fifo = RunPolicy("fifo", topo, t);
  EXPECT_DOUBLE_EQ(fifo.jobs[2].first_start_s, 100);
  EXPECT_LT(r.metrics.queue_delay_s.mean, fifo.metrics.queue_delay_s.mean);
}

TEST(Replay, SoftLocalitySplitsAfterWaitingHardLocalityWaits) {
  // Three nodes with 5 GPUs busy for 10,000 s; a 9-GPU job at 0 s fits only split (3 + 3 + 3).
  ClusterTopology topo = SmallCluster(3);
  ReplayOptions o;
  o.locality_wait_s = 300;
  for (Locality l : {Locality::kSoft, Locality::kHard}) {
    JobTrace t = MakeJobTrace({MakeJob(0, 5, 10000), MakeJob(0, 5, 10000), MakeJob(0, 5, 10000),
                               MakeJob(0, 9, 100, JobClass::kExperimental, 0, 0, l)});
    ReplayResult r = RunPolicy("topo", topo, t, o);
    if (l == Locality::kSoft) {
      EXPECT_DOUBLE_EQ(r.jobs[3].first_start_s, 300);
      EXPECT_EQ(r.jobs[3].split_runs, 1);
    } else {
      EXPECT_DOUBLE_EQ(r.jobs[3].first_start_s, 10000);
      EXPECT_EQ(r.jobs[3].split_runs, 0);
    }
  }
  // A job that fits one node and carries no model never splits, soft or not.
  JobTrace t = MakeJobTrace({MakeJob(0, 5, 10000), MakeJob(0, 5, 10000), MakeJob(0, 5, 10000), MakeJob(0, 6, 100)});
  ReplayResult r = RunPolicy("topo", topo, t, o);
  EXPECT_DOUBLE_EQ(r.jobs[3].first_start_s, 10000);
  EXPECT_EQ(r.metrics.split_placements, 0);
}

TEST(Replay, ConsolidationMigratesASmallJobToFreeAWholeNode) {
  // Two nodes, each filled by a short and a long 4-GPU job; when the short ones end at 1,000 s
  // each node has 4 free GPUs, and an 8-GPU job at 1,500 s fits only once a long one moves.
  ClusterTopology topo = SmallCluster(2);
  ReplayOptions o;
  o.min_run_s = 0;
  JobTrace t = MakeJobTrace({MakeJob(0, 4, 1000), MakeJob(0, 4, 10000, JobClass::kExperimental, 1000, 60),
                             MakeJob(0, 4, 1000), MakeJob(0, 4, 10000, JobClass::kExperimental, 1000, 60),
                             MakeJob(1500, 8, 100, JobClass::kExperimental, 0, 0, Locality::kHard)});
  ReplayResult topo_only = RunPolicy("topo", topo, t, o);
  EXPECT_DOUBLE_EQ(topo_only.jobs[4].first_start_s, 10000);
  ReplayResult r = RunPolicy("topo-defrag", topo, t, o);
  EXPECT_EQ(r.metrics.migrations, 1);
  EXPECT_DOUBLE_EQ(r.jobs[4].first_start_s, 1500);
  // The moved job had run 1,500 s with one checkpoint at 1,000 s: 500 s x 4 GPUs lost.
  const int moved = r.jobs[1].migrations == 1 ? 1 : 3;
  EXPECT_EQ(r.jobs[moved].migrations, 1);
  EXPECT_DOUBLE_EQ(r.jobs[moved].lost_gpu_s, 2000);
  EXPECT_DOUBLE_EQ(r.jobs[moved].finish_s, 1500 + 60 + 9000);
  EXPECT_EQ(r.metrics.split_placements, 0);
}

// Random traces: every policy finishes every job; the accounting adds up per job (held =
// useful + lost + restart at packed speed); no preemption loses more than a checkpoint interval.
TEST(Replay, AccountingHoldsOnRandomTraces) {
  std::mt19937_64 rng(12);
  ClusterTopology topo = SmallCluster(6, 8, 3);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Job> jobs;
    double t = 0;
    const int sizes[] = {1, 2, 4, 8, 16, 24};
    for (int i = 0; i < 60; ++i) {
      t += std::uniform_real_distribution<double>(0, 400)(rng);
      Job j = MakeJob(std::floor(t), sizes[rng() % 6], 100 + static_cast<double>(rng() % 5000),
                      rng() % 3 == 0 ? JobClass::kProduction : JobClass::kExperimental, 600, 50,
                      rng() % 2 ? Locality::kHard : Locality::kSoft);
      jobs.push_back(j);
    }
    JobTrace trace = MakeJobTrace(jobs);
    ReplayOptions o;
    o.min_run_s = 300;
    for (const auto& info : Policies()) {
      ReplayResult r = RunPolicy(info.name, topo, trace, o);
      ASSERT_EQ(r.metrics.jobs_finished, 60) << info.name;
      double restart = 0;
      for (const auto& iv : r.placements) (void)iv;
      for (size_t i = 0; i < r.jobs.size(); ++i) {
        const JobRecord& rec = r.jobs[i];
        const Job& j = trace.jobs[i];
        EXPECT_LE(rec.lost_gpu_s, rec.preemptions * j.gpus * j.checkpoint_interval_s +
                                      rec.migrations * j.gpus * j.checkpoint_interval_s + 1e-6)
            << info.name << " job " << i;
        // held - useful - lost = restart paid by this job (at most one per preemption/migration).
        const double rest = rec.allocated_gpu_s - j.run_s * j.gpus - rec.lost_gpu_s;
        EXPECT_GE(rest, -1e-6) << info.name << " job " << i;
        EXPECT_LE(rest, (rec.preemptions + rec.migrations) * j.restart_overhead_s * j.gpus + 1e-6) << info.name;
        restart += rest;
        EXPECT_GE(rec.first_start_s, j.submit_s);
      }
      EXPECT_NEAR(restart / 3600, r.metrics.restart_gpu_hours, 1e-9) << info.name;
      if (std::string(info.name) == "fifo" || std::string(info.name) == "topo") {
        EXPECT_EQ(r.metrics.preemptions, 0);
      }
    }
  }
}

TEST(Replay, SameInputsSameResults) {
  std::mt19937_64 rng(5);
  std::vector<Job> jobs;
  for (int i = 0; i < 200; ++i)
    jobs.push_back(MakeJob(static_cast<double>(i * 37 % 1000), 1 << (rng() % 4), 50 + static_cast<double>(rng() % 900),
                           i % 4 == 0 ? JobClass::kProduction : JobClass::kExperimental, 300, 30));
  ClusterTopology topo = SmallCluster(4);
  JobTrace trace = MakeJobTrace(jobs);
  for (const auto& info : Policies()) {
    ReplayResult a = RunPolicy(info.name, topo, trace), b = RunPolicy(info.name, topo, trace);
    ASSERT_EQ(a.placements.size(), b.placements.size());
    for (size_t i = 0; i < a.placements.size(); ++i) {
      EXPECT_EQ(a.placements[i].node, b.placements[i].node);
      EXPECT_EQ(a.placements[i].start_s, b.placements[i].start_s);
    }
    EXPECT_EQ(a.metrics.queue_delay_s.mean, b.metrics.queue_delay_s.mean);
  }
}

TEST(Replay, UnplaceableJobsAreTakenOutWithTheirLines) {
  ClusterTopology topo = SmallCluster(2, 8, 1);  // leaves of one node
  std::vector<Job> jobs = {MakeJob(0, 8, 10), MakeJob(0, 17, 10),
                           MakeJob(0, 16, 10, JobClass::kExperimental, 0, 0, Locality::kHard)};
  jobs.push_back(MakeJob(0, 1, 10));
  jobs.back().gpu_type = "H100";
  JobTrace t = FilterPlaceable(topo, MakeJobTrace(jobs), {});
  // The 16-GPU hard-locality job is wider than a leaf: its packed placement spans the fewest
  // leaves (two), so it stays.
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[1].gpus, 16);
  EXPECT_EQ(t.jobs[1].id, 1);
  ASSERT_EQ(t.skipped.size(), 2u);
  EXPECT_EQ(t.skipped[0].line, 3);
  EXPECT_NE(t.skipped[0].reason.find("more than the cluster"), std::string::npos);
  EXPECT_EQ(t.skipped[1].line, 5);
  EXPECT_NE(t.skipped[1].reason.find("H100"), std::string::npos);
}

// Every row skipped: nothing to replay, an error naming the first (issue 32: exit 0 and zeros).
TEST(Replay, EveryRowSkippedIsAnError) {
  ClusterTopology topo = SmallCluster(2, 8, 1);
  JobTrace trace = MakeJobTrace({MakeJob(0, 17, 10), MakeJob(0, 32, 10)});
  trace.path = "jobs.csv";
  EXPECT_EQ(InputErrorOf([&] { FilterPlaceable(topo, trace, {}); }),
            "jobs.csv: every row was skipped (2); the first, line 2: 17 GPUs: more than the cluster's GPUs");
}

}  // namespace
}  // namespace paratune
