// Kueue's ClusterQueues (kueue_config.h, the ClusterQueue API as `kubectl get clusterqueues -o
// json` prints it) and the `kueue` policy (kueue_policy.cc) on small cases computed by hand from
// Kueue's documentation (concepts/cluster_queue: quotas, cohorts, borrowingLimit, lendingLimit,
// queueingStrategy, preemption; concepts/topology_aware_scheduling).
#include <gtest/gtest.h>

#include "scheduling/cluster_test_util.h"
#include "scheduling/kueue_config.h"
#include "scheduling/policy.h"
#include "util/test_util.h"

namespace paratune {
namespace {

using testing::MakeJob;
using testing::MakeJobTrace;
using testing::SmallCluster;

// A ClusterQueue with one flavor's GPU quota, and the spec members given.
std::string Queue(const std::string& name, int nominal, const std::string& more = "",
                  const std::string& gpu_more = "") {
  return R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{"name":")" + name +
         R"("},"spec":{)" + more + R"("resourceGroups":[{"coveredResources":["cpu","nvidia.com/gpu"],"flavors":[)" +
         R"({"name":"h100","resources":[{"name":"cpu","nominalQuota":"512"},{"name":"nvidia.com/gpu","nominalQuota":)" +
         std::to_string(nominal) + gpu_more + "}]}]}]}}";
}
std::string List(const std::string& a, const std::string& b = "") {
  return R"({"apiVersion":"v1","kind":"List","items":[)" + a + (b.empty() ? "" : "," + b) + "]}";
}

TEST(KueueConfig, QuotasCohortsLimitsAndPreemption) {
  const KueueConfig c = ParseKueueConfig(
      List(
          Queue("team-a", 8, R"("cohort":"ml","queueingStrategy":"StrictFIFO",)",
                R"(,"borrowingLimit":"4","lendingLimit":2)"),
          Queue(
              "team-b", 8,
              R"("cohortName":"ml","preemption":{"reclaimWithinCohort":"Any","withinClusterQueue":"LowerPriority"},)")),
      "cq.json");
  ASSERT_EQ(c.queues.size(), 2u);
  const KueueClusterQueue& a = *c.Find("team-a");
  EXPECT_EQ(a.cohort, "ml");
  EXPECT_EQ(a.nominal_gpus, 8);
  EXPECT_EQ(a.borrowing_limit_gpus, 4);
  EXPECT_EQ(a.lending_limit_gpus, 2);
  EXPECT_EQ(a.guaranteed_gpus(), 6);
  EXPECT_TRUE(a.strict_fifo);
  const KueueClusterQueue& b = *c.Find("team-b");
  EXPECT_EQ(b.cohort, "ml");  // v1beta2's cohortName
  EXPECT_EQ(b.guaranteed_gpus(), 0);
  EXPECT_EQ(b.reclaim, KueueReclaim::kAny);
  EXPECT_EQ(b.within, KueueWithin::kLowerPriority);
  EXPECT_FALSE(b.strict_fifo);
  EXPECT_EQ(c.Find("team-c"), nullptr);
  EXPECT_EQ(ParseKueueConfig(Queue("solo", 16), "cq.json").queues.size(), 1u);  // one object
}

TEST(KueueConfig, BrokenInputIsOneLine) {
  EXPECT_EQ(InputErrorOf([] { ParseKueueConfig(List(Queue("a", 8, "", R"(,"borrowingLimit":"lots")")), "cq.json"); }),
            "cq.json: ClusterQueue 'a': borrowingLimit of nvidia.com/gpu is not a whole number of GPUs");
  EXPECT_EQ(InputErrorOf([] { ParseKueueConfig(List(Queue("a", 8, R"("queueingStrategy":"LIFO",)")), "cq.json"); }),
            "cq.json: ClusterQueue 'a': spec.queueingStrategy 'LIFO' is not one of BestEffortFIFO, StrictFIFO");
  EXPECT_EQ(InputErrorOf([] { ParseKueueConfig(List(Queue("a", 8), Queue("a", 4)), "cq.json"); }),
            "cq.json: ClusterQueue 'a' is listed twice");
  EXPECT_EQ(InputErrorOf([] { ParseKueueConfig(R"({"kind":"LocalQueue"})", "cq.json"); }),
            "cq.json: an item of kind 'LocalQueue' is not a ClusterQueue");
  EXPECT_EQ(InputErrorOf([] { ParseKueueConfig(R"({"kind":"List","items":[]})", "cq.json"); }),
            "cq.json: no ClusterQueue");
  EXPECT_CONTAINS(InputErrorOf([] { ParseKueueConfig("{", "cq.json"); }), "cq.json: not JSON");
  // A number beyond double (found by the job_history fuzz target): refused, not thrown through.
  EXPECT_CONTAINS(InputErrorOf([] { ParseKueueConfig("4e2026", "cq.json"); }), "cq.json: not JSON");
}

ReplayResult RunKueue(const std::string& config, const ClusterTopology& topo, const JobTrace& trace) {
  const KueueConfig c = ParseKueueConfig(config, "cq.json");
  ReplayOptions o;
  o.kueue = &c;
  auto p = FindPolicy("kueue").make();
  return Replay(topo, trace, *p, nullptr, o);
}

Job InQueue(Job j, const std::string& queue, double priority = 0) {
  j.queue = queue;
  j.priority = priority;
  return j;
}

// Two 8-GPU nodes; team-a and team-b have 8 GPUs each in cohort ml. Team-a runs two 8-GPU jobs
// of 1,000 s at 0: the second borrows team-b's idle quota. Team-b's 8-GPU job arrives at 100 s:
// with reclaimWithinCohort Any it evicts the borrowing job (the most recently started of team-a's),
// which runs again from the start when team-a's first job ends (1,000 s to 2,000 s); with Never it
// waits until 1,000 s. Without a cohort team-a's second job waits for its own quota.
TEST(KueuePolicy, BorrowingAndReclaimWithinTheCohort) {
  const ClusterTopology topo = SmallCluster(2);
  const JobTrace t = MakeJobTrace({InQueue(MakeJob(0, 8, 1000), "team-a"), InQueue(MakeJob(0, 8, 1000), "team-a"),
                                   InQueue(MakeJob(100, 8, 1000), "team-b")});
  const ReplayResult reclaim =
      RunKueue(List(Queue("team-a", 8, R"("cohort":"ml",)"),
                    Queue("team-b", 8, R"("cohort":"ml","preemption":{"reclaimWithinCohort":"Any"},)")),
               topo, t);
  EXPECT_DOUBLE_EQ(reclaim.jobs[1].first_start_s, 0);  // borrowed
  EXPECT_DOUBLE_EQ(reclaim.jobs[2].first_start_s, 100);
  EXPECT_EQ(reclaim.jobs[1].preemptions, 1);
  EXPECT_DOUBLE_EQ(reclaim.jobs[1].finish_s, 2000);
  const ReplayResult never =
      RunKueue(List(Queue("team-a", 8, R"("cohort":"ml",)"), Queue("team-b", 8, R"("cohort":"ml",)")), topo, t);
  EXPECT_DOUBLE_EQ(never.jobs[2].first_start_s, 1000);
  EXPECT_EQ(never.jobs[1].preemptions, 0);
  const ReplayResult alone = RunKueue(List(Queue("team-a", 8), Queue("team-b", 8)), topo, t);
  EXPECT_DOUBLE_EQ(alone.jobs[1].first_start_s, 1000);
  EXPECT_DOUBLE_EQ(alone.jobs[2].first_start_s, 100);
  // A borrowing limit of 0 (or team-b lending nothing) keeps team-a within its own quota.
  const ReplayResult limited = RunKueue(
      List(Queue("team-a", 8, R"("cohort":"ml",)", R"(,"borrowingLimit":0)"), Queue("team-b", 8, R"("cohort":"ml",)")),
      topo, t);
  EXPECT_DOUBLE_EQ(limited.jobs[1].first_start_s, 1000);
  const ReplayResult unlent = RunKueue(
      List(Queue("team-a", 8, R"("cohort":"ml",)"), Queue("team-b", 8, R"("cohort":"ml",)", R"(,"lendingLimit":0)")),
      topo, t);
  EXPECT_DOUBLE_EQ(unlent.jobs[1].first_start_s, 1000);
}

// Team-a's quota is 12 GPUs on two 8-GPU nodes: a1 (8 GPUs, 1,000 s) runs; a2 (8) does not fit
// the quota; a3 (4) does. BestEffortFIFO admits a3 at once; StrictFIFO holds it behind a2 until
// a1 ends (both start at 1,000 s).
TEST(KueuePolicy, StrictFifoHoldsTheQueueBehindItsHead) {
  const ClusterTopology topo = SmallCluster(2);
  const JobTrace t = MakeJobTrace(
      {InQueue(MakeJob(0, 8, 1000), "a"), InQueue(MakeJob(1, 8, 1000), "a"), InQueue(MakeJob(2, 4, 1000), "a")});
  const ReplayResult best = RunKueue(List(Queue("a", 12)), topo, t);
  EXPECT_DOUBLE_EQ(best.jobs[2].first_start_s, 2);
  EXPECT_DOUBLE_EQ(best.jobs[1].first_start_s, 1000);
  const ReplayResult strict = RunKueue(List(Queue("a", 12, R"("queueingStrategy":"StrictFIFO",)")), topo, t);
  EXPECT_DOUBLE_EQ(strict.jobs[1].first_start_s, 1000);
  EXPECT_DOUBLE_EQ(strict.jobs[2].first_start_s, 1000);
}

// withinClusterQueue LowerPriority: a priority-10 workload evicts its queue's priority-1 one.
TEST(KueuePolicy, PriorityPreemptionWithinTheQueue) {
  const ClusterTopology topo = SmallCluster(1);
  const JobTrace t = MakeJobTrace({InQueue(MakeJob(0, 8, 1000), "a", 1), InQueue(MakeJob(100, 8, 500), "a", 10)});
  const ReplayResult r =
      RunKueue(List(Queue("a", 8, R"("preemption":{"withinClusterQueue":"LowerPriority"},)")), topo, t);
  EXPECT_DOUBLE_EQ(r.jobs[1].first_start_s, 100);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_DOUBLE_EQ(r.jobs[0].finish_s, 1600);  // again from the start at 600 s
  const ReplayResult off = RunKueue(List(Queue("a", 8)), topo, t);
  EXPECT_DOUBLE_EQ(off.jobs[1].first_start_s, 1000);
}

// Topology-aware scheduling: four nodes, two per leaf; nodes 0 and 2 busy until 5,000 s. A
// 16-GPU workload whose pod set requires the leaf level (locality hard) waits for a leaf; one
// that only prefers it spans the leaves at once. A workload of a queue not configured has no quota.
TEST(KueuePolicy, RequiredTopologyWaitsPreferredSpans) {
  const ClusterTopology topo = SmallCluster(4, 8, 2);
  Job hard = MakeJob(200, 16, 1000, JobClass::kExperimental, 0, 0, Locality::kHard);
  Job soft = MakeJob(200, 16, 1000);
  const auto trace = [](Job j) {
    return MakeJobTrace({MakeJob(0, 8, 5000), MakeJob(0, 8, 100), MakeJob(0, 8, 5000), MakeJob(0, 8, 100), j});
  };
  EXPECT_DOUBLE_EQ(RunKueue(List(Queue("a", 64)), topo, trace(hard)).jobs[4].first_start_s, 5000);
  EXPECT_DOUBLE_EQ(RunKueue(List(Queue("a", 64)), topo, trace(soft)).jobs[4].first_start_s, 200);
}

}  // namespace
}  // namespace paratune
