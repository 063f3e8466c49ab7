// Tests of the slurm.conf reader (slurm.conf(5), https://slurm.schedmd.com/slurm.conf.html): the
// keys the `slurm` policy follows and their documented defaults, Slurm's time strings, the
// partitions, broken values, and the jobs as ApplySlurmConfig maps them (the multifactor formula
// of priority_multifactor.html, hand-computed).
#include "scheduling/slurm_conf.h"

#include <gtest/gtest.h>

#include <cmath>

#include "util/test_util.h"

namespace paratune {
namespace {

TEST(SlurmConf, TimeStringsAsSlurmWritesThem) {
  EXPECT_DOUBLE_EQ(SlurmTimeSeconds("30"), 1800);     // minutes
  EXPECT_DOUBLE_EQ(SlurmTimeSeconds("30:15"), 1815);  // minutes:seconds
  EXPECT_DOUBLE_EQ(SlurmTimeSeconds("2:00:00"), 7200);
  EXPECT_DOUBLE_EQ(SlurmTimeSeconds("1-12"), 129600);    // days-hours
  EXPECT_DOUBLE_EQ(SlurmTimeSeconds("1-00:30"), 88200);  // days-hours:minutes
  EXPECT_DOUBLE_EQ(SlurmTimeSeconds("1-00:00:10"), 86410);
  EXPECT_TRUE(std::isinf(SlurmTimeSeconds("UNLIMITED")));
  EXPECT_TRUE(std::isinf(SlurmTimeSeconds("infinite")));
  for (const char* bad : {"", "x", "1:2:3:4", "-5", "1-", "Partition_Limit", "1-2-3"})
    EXPECT_TRUE(std::isnan(SlurmTimeSeconds(bad))) << bad;
}

TEST(SlurmConf, DefaultsAreSlurmsOwn) {
  const SlurmConfig c = ParseSlurmConf("ClusterName=x\n", "slurm.conf");
  EXPECT_EQ(c.scheduler, SlurmScheduler::kBackfill);
  EXPECT_TRUE(c.multifactor);
  EXPECT_EQ(c.bf_max_job_test, 500);
  EXPECT_DOUBLE_EQ(c.bf_interval_s, 30);
  EXPECT_DOUBLE_EQ(c.bf_window_s, 86400);
  EXPECT_DOUBLE_EQ(c.max_age_s, 7 * 86400);
  EXPECT_EQ(c.default_queue_depth, 100);
  EXPECT_EQ(c.placement, SlurmPlacement::kFlat);
  EXPECT_EQ(c.preempt, SlurmPreempt::kOff);
  EXPECT_TRUE(c.partitions.empty());
}

TEST(SlurmConf, KeysPartitionsAndComments) {
  const SlurmConfig c = ParseSlurmConf(
      "# a cluster\n"
      "schedulertype=sched/builtin   # keys are case-insensitive\n"
      "SchedulerParameters=bf_interval=60,bf_max_job_test=1000,bf_window=2880,max_switch_wait=600,bf_continue\n"
      "PriorityWeightAge=1000 PriorityWeightFairshare=10000\n"
      "PriorityWeightPartition=500\nPriorityMaxAge=1-0\nPriorityFavorSmall=YES\n"
      "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\nPreemptExemptTime=01:00:00\n"
      "TopologyPlugin=topology/block\nSelectType=select/cons_tres\n"
      "NodeName=gpu[001-128] Gres=gpu:8\n"
      "PartitionName=DEFAULT MaxTime=10\n"
      "PartitionName=batch Nodes=ALL Default=YES MaxTime=2-00:00:00 PriorityJobFactor=1 OverSubscribe=EXCLUSIVE\n"
      "PartitionName=prod Nodes=ALL MaxTime=UNLIMITED PriorityJobFactor=10 PriorityTier=2\n",
      "slurm.conf");
  EXPECT_EQ(c.scheduler, SlurmScheduler::kBuiltin);
  EXPECT_EQ(c.bf_max_job_test, 1000);
  EXPECT_DOUBLE_EQ(c.bf_interval_s, 60);
  EXPECT_DOUBLE_EQ(c.bf_window_s, 2880 * 60);
  EXPECT_DOUBLE_EQ(c.max_switch_wait_s, 600);
  EXPECT_DOUBLE_EQ(c.weight_age, 1000);
  EXPECT_DOUBLE_EQ(c.weight_fairshare, 10000);
  EXPECT_DOUBLE_EQ(c.weight_partition, 500);
  EXPECT_DOUBLE_EQ(c.max_age_s, 86400);
  EXPECT_TRUE(c.favor_small);
  EXPECT_EQ(c.preempt, SlurmPreempt::kPartitionPrio);
  EXPECT_EQ(c.preempt_mode, SlurmPreemptMode::kRequeue);
  EXPECT_DOUBLE_EQ(c.preempt_exempt_time_s, 3600);
  EXPECT_EQ(c.placement, SlurmPlacement::kBlock);
  EXPECT_FALSE(c.exclusive_nodes);  // one partition of two is exclusive
  ASSERT_EQ(c.partitions.size(), 2u);
  EXPECT_EQ(c.partitions[0].name, "batch");
  EXPECT_TRUE(c.partitions[0].is_default);
  EXPECT_DOUBLE_EQ(c.partitions[0].max_time_s, 2 * 86400);
  EXPECT_DOUBLE_EQ(c.partitions[1].priority_job_factor, 10);
  EXPECT_EQ(c.partitions[1].priority_tier, 2);
  EXPECT_TRUE(std::isinf(c.partitions[1].max_time_s));
  EXPECT_EQ(c.MaxTier(), 2);
  EXPECT_EQ(c.Partition("prod")->name, "prod");
  EXPECT_EQ(c.Partition("nosuch")->name, "batch");  // the default partition
}

TEST(SlurmConf, BrokenValuesAreOneLineNamingTheLineAndKey) {
  EXPECT_EQ(InputErrorOf([] { ParseSlurmConf("ClusterName=x\nPriorityWeightAge=lots\n", "s.conf"); }),
            "s.conf:2: PriorityWeightAge=lots is not a whole number from 0 to 4294967295");
  EXPECT_EQ(InputErrorOf([] { ParseSlurmConf("PriorityWeightQOS=4294967296\n", "s.conf"); }),
            "s.conf:1: PriorityWeightQOS=4294967296 is not a whole number from 0 to 4294967295");
  EXPECT_EQ(InputErrorOf([] { ParseSlurmConf("SchedulerType=sched/hold\n", "s.conf"); }),
            "s.conf:1: SchedulerType=sched/hold is not one of sched/backfill, sched/builtin");
  EXPECT_EQ(InputErrorOf([] { ParseSlurmConf("PreemptMode=SUSPEND,GANG\n", "s.conf"); }),
            "s.conf:1: PreemptMode=SUSPEND,GANG: suspending jobs is not replayed (REQUEUE, CANCEL or OFF)");
  EXPECT_EQ(InputErrorOf([] { ParseSlurmConf("PartitionName=a MaxTime=soon\n", "s.conf"); }),
            "s.conf:1: MaxTime=soon is not a Slurm time ([days-]hours:minutes:seconds, minutes, UNLIMITED)");
  EXPECT_EQ(InputErrorOf([] { ParseSlurmConf("SchedulerParameters=bf_interval=-1\n", "s.conf"); }),
            "s.conf:1: SchedulerParameters bf_interval=-1 is not a non-negative number");
  EXPECT_CONTAINS(InputErrorOf([] { ReadSlurmConf("/nonexistent/slurm.conf"); }),
                  "/nonexistent/slurm.conf: cannot read");
}

// priority_multifactor.html: priority = W_age x min(1, wait / PriorityMaxAge) + W_partition x
// PriorityJobFactor / max PriorityJobFactor + W_size x size + ...; the queue key is that less the
// part every pending job gains alike, W_age x now / PriorityMaxAge.
TEST(SlurmConf, JobsTakeTheirClassLimitAndMultifactorOrder) {
  const SlurmConfig c = ParseSlurmConf(
      "PriorityWeightAge=1000\nPriorityMaxAge=16:40\nPriorityWeightPartition=400\nPriorityWeightJobSize=100\n"
      "PartitionName=batch Default=YES MaxTime=60 PriorityJobFactor=1\n"
      "PartitionName=prod MaxTime=UNLIMITED PriorityJobFactor=4 PriorityTier=3\n",
      "slurm.conf");
  ASSERT_DOUBLE_EQ(c.max_age_s, 1000);
  JobTrace t;
  Job a;  // recorded Priority 1500 after waiting 500 s: 500 of it was age; submitted at 100 s
  a.priority = 1500;
  a.measured_wait_s = 500;
  a.submit_s = 100;
  a.gpus = 8;
  a.queue = "batch";
  a.time_limit_s = 7200;
  Job b;  // nothing recorded: partition 400 x 4/4 + size 100 x 16/32, submitted at 200 s
  b.submit_s = 200;
  b.gpus = 16;
  b.queue = "prod";
  Job old;  // waited 5,000 s: its age factor was capped at 1
  old.priority = 3000;
  old.measured_wait_s = 5000;
  old.queue = "elsewhere";  // the default partition
  t.jobs = {a, b, old};
  ApplySlurmConfig(c, 32, &t);
  EXPECT_DOUBLE_EQ(t.jobs[0].priority, 1500 - 500 - 1000 * 100.0 / 1000);
  EXPECT_DOUBLE_EQ(t.jobs[1].priority, 400 + 100 * 0.5 - 1000 * 200.0 / 1000);
  EXPECT_DOUBLE_EQ(t.jobs[2].priority, 3000 - 1000);
  EXPECT_DOUBLE_EQ(t.jobs[0].time_limit_s, 3600);   // capped by batch's MaxTime=60 (minutes)
  EXPECT_TRUE(std::isnan(t.jobs[1].time_limit_s));  // UNLIMITED: the run time stands for it
  EXPECT_EQ(t.jobs[0].job_class, JobClass::kExperimental);
  EXPECT_EQ(t.jobs[1].job_class, JobClass::kProduction);  // the highest PriorityTier
  EXPECT_EQ(t.jobs[2].job_class, JobClass::kExperimental);
  // priority/basic: submission order.
  JobTrace u = t;
  ApplySlurmConfig(ParseSlurmConf("PriorityType=priority/basic\n", "s.conf"), 32, &u);
  EXPECT_DOUBLE_EQ(u.jobs[0].priority, 0);
  EXPECT_DOUBLE_EQ(u.jobs[1].priority, 0);
}

}  // namespace
}  // namespace paratune
