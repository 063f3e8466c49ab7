// End-to-end tests of `paratune cluster`: the summary, the JSON schema, the series, per-job
// and placement outputs, byte-for-byte determinism, and the bad-input contract.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "util/test_util.h"

namespace paratune::cli_test {
namespace {

// Hand-made native trace: the preemption case of src/scheduling/replay_test.cc on one node, plus
// a 4-GPU job.
constexpr const char* kTrace =
    "name,submit_s,gpus,run_s,class,checkpoint_interval_s,restart_overhead_s\n"
    "exp,0,8,10000,experimental,1000,100\n"
    "prod,7500,8,2000,production,1000,100\n"
    "small,20000,4,100,experimental,,\n";

class ClusterCli : public Cli {};

TEST_F(ClusterCli, JsonFollowsTheSchemaAndCountsThePreemption) {
  const std::string trace = Write("t.csv", kTrace);
  const Result r = Run({"cluster", "--job-history", trace, "--nodes", "1", "--gpu", "H100", "--policy",
                        "topo,topo-preempt", "--min-run", "3600", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "paratune.cluster/1");
  EXPECT_EQ(j["cluster"]["gpus"], 8);
  EXPECT_EQ(j["trace"]["jobs"], 3);
  EXPECT_EQ(j["trace"]["format"], "native");
  ASSERT_EQ(j["policies"].size(), 2u);
  const auto& topo = j["policies"][0];
  const auto& pre = j["policies"][1];
  EXPECT_EQ(topo["policy"], "topo");
  EXPECT_EQ(pre["policy"], "topo-preempt");
  EXPECT_EQ(topo["preemptions"], 0);
  EXPECT_EQ(pre["preemptions"], 1);
  EXPECT_DOUBLE_EQ(pre["lost_gpu_hours"].get<double>(), 4000.0 / 3600);
  EXPECT_DOUBLE_EQ(pre["by_class"]["production"]["queue_delay_s"]["p99"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(topo["by_class"]["production"]["queue_delay_s"]["p99"].get<double>(), 2500);
  for (const char* k : {"jobs_finished", "utilization", "useful_gpu_hours", "split_placements", "split_placements_le8",
                        "queue_delay_s", "jct_s", "fragmentation", "makespan_s"})
    EXPECT_TRUE(pre.contains(k)) << k;
  for (const char* k : {"mean", "p50", "p99", "p999"}) EXPECT_TRUE(pre["queue_delay_s"].contains(k)) << k;
}

TEST_F(ClusterCli, SameInputsGiveTheSameBytes) {
  const std::string trace = Write("t.csv", kTrace);
  std::string first[4];
  for (int run = 0; run < 2; ++run) {
    const std::string d = "run" + std::to_string(run);
    const std::string series = Write(d + "/s.csv", ""), jobs = Write(d + "/j.csv", ""), tr = Write(d + "/p.json", "");
    const Result r = Run({"cluster", "--job-history", trace, "--nodes", "2", "--gpu", "H100", "--policy",
                          "fifo,topo,topo-preempt,topo-defrag", "--json", "--series", series, "--jobs-out", jobs,
                          "--trace-out", tr, "--series-interval", "600"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string got[4] = {r.out, Slurp(series), Slurp(jobs), Slurp(tr)};
    for (int i = 0; i < 4; ++i) {
      if (run == 0)
        first[i] = got[i];
      else
        EXPECT_EQ(first[i], got[i]) << "output " << i;
    }
  }
  // The series has a header and one row per policy and sample; the trace one track per node.
  EXPECT_EQ(first[1].substr(0, first[1].find('\n')),
            "policy,time_s,allocated_gpus,utilization,queue_length,queued_gpus,running_jobs,fragmented_gpus,"
            "partial_nodes,partial_domains");
  const auto trace_json = nlohmann::json::parse(first[3]);
  int names = 0, events = 0;
  for (const auto& e : trace_json["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") ++names;
    if (e["ph"] == "X") ++events;
  }
  EXPECT_EQ(names, 4 * 2);  // 4 policies x 2 nodes
  EXPECT_GE(events, 4 * 3);
}

TEST_F(ClusterCli, SummaryPutsPoliciesSideBySide) {
  const std::string trace = Write("t.csv", kTrace);
  const Result r = Run({"cluster", "--job-history", trace, "--nodes", "1", "--gpu", "H100"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("fifo"), std::string::npos);
  EXPECT_NE(r.out.find("topo-preempt"), std::string::npos);
  EXPECT_NE(r.out.find("queue delay p99.9"), std::string::npos);
  EXPECT_NE(r.out.find("3 jobs replayed"), std::string::npos);
}

// A Slurm history replayed beside the queueing it recorded: two 8-GPU jobs on one 8-GPU node, the
// second submitted while the first runs; each waited 60 s in the history (Start - Eligible).
// The replay starts the first at once and the second when the first ends, 3,540 s after its
// submission: a mean of 1,770 s against the recorded 60 s, +2850%.
TEST_F(ClusterCli, SlurmHistoryIsReplayedBesideItsRecordedQueueing) {
  const std::string history = Write(
      "sacct.txt",
      "JobID|Submit|Eligible|Start|End|State|AllocTRES\n"
      "11|2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:01:00|2026-03-01T11:01:00|COMPLETED|gres/gpu=8\n"
      "11.batch|2026-03-01T10:01:00|2026-03-01T10:01:00|2026-03-01T10:01:00|2026-03-01T11:01:00|COMPLETED|gres/gpu=8\n"
      "12|2026-03-01T10:01:00|2026-03-01T10:01:00|2026-03-01T10:02:00|2026-03-01T11:02:00|COMPLETED|gres/gpu=8\n");
  const Result r = Run({"cluster", "--job-history", history, "--nodes", "1", "--gpu", "H100", "--policy", "fifo"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("(slurm-sacct): 2 jobs replayed, 0 rows skipped"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("history  queue delay as recorded: mean 60 s, p50 60 s, p99 60 s (2 jobs)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("replayed mean against it: fifo +2850%"), std::string::npos) << r.out;
}

// The same two jobs as Kueue Workloads (`kubectl get workloads.kueue.x-k8s.io -A -o json`): each
// admitted 60 s after its creation; the replay's figures are the Slurm history's.
TEST_F(ClusterCli, KueueHistoryIsReplayedBesideItsRecordedQueueing) {
  const auto workload = [](const std::string& name, const std::string& created, const std::string& admitted,
                           const std::string& finished) {
    return R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"Workload","metadata":{"name":")" + name +
           R"(","namespace":"ml","creationTimestamp":")" + created +
           R"("},"spec":{"podSets":[{"name":"main","count":1,"template":{"spec":{"containers":[{"name":"c",)"
           R"("resources":{"requests":{"nvidia.com/gpu":"8"}}}]}}}]},"status":{"conditions":[)"
           R"({"type":"Admitted","status":"True","lastTransitionTime":")" +
           admitted + R"("},{"type":"Finished","status":"True","lastTransitionTime":")" + finished + R"("}]}})";
  };
  const std::string history =
      Write("workloads.json",
            "{\n\"apiVersion\": \"v1\",\n\"items\": [\n" +
                workload("a", "2026-03-01T10:00:00Z", "2026-03-01T10:01:00Z", "2026-03-01T11:01:00Z") + ",\n" +
                workload("b", "2026-03-01T10:01:00Z", "2026-03-01T10:02:00Z", "2026-03-01T11:02:00Z") +
                "\n],\n\"kind\": \"List\"\n}\n");
  const Result r = Run({"cluster", "--job-history", history, "--nodes", "1", "--gpu", "H100", "--policy", "fifo"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("(kubernetes): 2 jobs replayed, 0 rows skipped"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("history  queue delay as recorded: mean 60 s, p50 60 s, p99 60 s (2 jobs)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("replayed mean against it: fifo +2850%"), std::string::npos) << r.out;
  EXPECT_NE(
      RunBad({"cluster", "--job-history", Write("k.json", "{\"items\": [}"), "--nodes", "1"}).find("k.json: not JSON"),
      std::string::npos);
}

// A Slurm history with time limits replayed under its slurm.conf (policy slurm) and a what-if
// without backfill: the four jobs of src/scheduling/slurm_policy_test.cc's backfill case on one
// 8-GPU node, as Slurm ran them (starts at 0, 1,000, 2,000 and 31 s: waits 0, 999, 1,998 and 28 s,
// a mean of 756.25 s). The replay under the configuration gives the same starts (+0%); with
// sched/builtin the last job waits for the third (1,997 s): a mean of 1,248.5 s.
// PreemptType=preempt/qos with the QOS table (`--slurm-qos`): the "high" job preempts the "low"
// one at once and waits 0 s where the history recorded 1,000 s; the what-if without preemption
// waits as recorded (the mean of 0 and 1,000 s). A broken table is one line naming its file and line.
TEST_F(ClusterCli, SlurmQosTablePreemptsAndItsWhatIfDoesNot) {
  const std::string history =
      Write("sacct-qos.txt",
            "JobID|Partition|QOS|Submit|Eligible|Start|End|State|AllocTRES|Timelimit\n"
            "1|gpu|low|2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:16:50|COMPLETED|"
            "gres/gpu=8|01:00:00\n"
            "2|gpu|high|2026-03-01T10:00:10|2026-03-01T10:00:10|2026-03-01T10:16:50|2026-03-01T10:20:00|COMPLETED|"
            "gres/gpu=8|01:00:00\n");
  const std::string conf = Write("slurm-qos.conf", "PreemptType=preempt/qos\nPreemptMode=REQUEUE\n");
  const std::string qos = Write("qos.txt", "Name|Preempt|PreemptMode\nlow||cluster\nhigh|low|cluster\n");
  const Result r =
      Run({"cluster", "--job-history", history, "--nodes", "1", "--gpu", "H100", "--policy", "slurm", "--slurm-conf",
           conf, "--slurm-qos", qos, "--slurm-what-if", "PreemptType=preempt/none", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["policies"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["trace"]["measured_queue_delay_s"]["mean"].get<double>(), 500);
  EXPECT_EQ(j["policies"][0]["preemptions"], 1);
  // The high job starts at once; the low one waits again for its 190 s after its preemption.
  EXPECT_DOUBLE_EQ(j["policies"][0]["queue_delay_s"]["mean"].get<double>(), (0 + 190) / 2.0);
  EXPECT_EQ(j["policies"][1]["policy"], "slurm[PreemptType=preempt/none]");
  EXPECT_EQ(j["policies"][1]["preemptions"], 0);
  EXPECT_DOUBLE_EQ(j["policies"][1]["queue_delay_s"]["mean"].get<double>(), 500);
  EXPECT_NE(RunBad({"cluster", "--job-history", history, "--nodes", "1", "--policy", "slurm", "--slurm-conf", conf,
                    "--slurm-qos", Write("bad-qos.txt", "Name|Preempt|PreemptMode\nlow||suspend\n")})
                .find("bad-qos.txt:2: PreemptMode=suspend of QOS 'low'"),
            std::string::npos);
}

TEST_F(ClusterCli, SlurmConfAndItsWhatIfSideBySide) {
  const std::string history = Write(
      "sacct.txt",
      "JobID|Partition|Submit|Eligible|Start|End|State|AllocTRES|Timelimit\n"
      "1|gpu|2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:16:40|COMPLETED|gres/gpu=4|"
      "00:16:40\n"
      "2|gpu|2026-03-01T10:00:01|2026-03-01T10:00:01|2026-03-01T10:16:40|2026-03-01T10:33:20|COMPLETED|gres/gpu=8|"
      "00:16:40\n"
      "3|gpu|2026-03-01T10:00:02|2026-03-01T10:00:02|2026-03-01T10:33:20|2026-03-01T10:41:40|COMPLETED|gres/gpu=4|"
      "00:33:20\n"
      "4|gpu|2026-03-01T10:00:03|2026-03-01T10:00:03|2026-03-01T10:00:31|2026-03-01T10:08:51|COMPLETED|gres/gpu=4|"
      "00:15:00\n");
  const std::string conf = Write("slurm.conf",
                                 "SchedulerType=sched/backfill\nSchedulerParameters=bf_interval=30\n"
                                 "PartitionName=gpu Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
  const Result r = Run({"cluster", "--job-history", history, "--nodes", "1", "--gpu", "H100", "--policy", "slurm",
                        "--slurm-conf", conf, "--slurm-what-if", "SchedulerType=sched/builtin", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["policies"].size(), 2u);
  EXPECT_EQ(j["policies"][0]["policy"], "slurm");
  EXPECT_EQ(j["policies"][1]["policy"], "slurm[SchedulerType=sched/builtin]");
  EXPECT_DOUBLE_EQ(j["trace"]["measured_queue_delay_s"]["mean"].get<double>(), 756.25);
  EXPECT_DOUBLE_EQ(j["policies"][0]["queue_delay_s"]["mean"].get<double>(), 756.25);
  EXPECT_DOUBLE_EQ(j["policies"][1]["queue_delay_s"]["mean"].get<double>(), 1248.5);
  const Result text = Run({"cluster", "--job-history", history, "--nodes", "1", "--gpu", "H100", "--policy",
                           "slurm,topo", "--slurm-conf", conf});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("replayed mean against it: slurm +0% topo"), std::string::npos) << text.out;
  // Bad input: a value Slurm would refuse, a what-if that changes the jobs, a missing file.
  EXPECT_NE(RunBad({"cluster", "--job-history", history, "--nodes", "1", "--policy", "slurm", "--slurm-conf",
                    Write("bad.conf", "PriorityWeightAge=lots\n")})
                .find("bad.conf:1: PriorityWeightAge=lots is not a whole number from 0 to 4294967295"),
            std::string::npos);
  EXPECT_NE(RunBad({"cluster", "--job-history", history, "--nodes", "1", "--policy", "slurm", "--slurm-conf", conf,
                    "--slurm-what-if", "PriorityWeightAge=100"})
                .find("changes the jobs' priorities or partitions"),
            std::string::npos);
  EXPECT_NE(RunBad({"cluster", "--job-history", history, "--nodes", "1", "--slurm-conf", "/nonexistent/slurm.conf"})
                .find("/nonexistent/slurm.conf"),
            std::string::npos);
}

// A Kueue history replayed under its ClusterQueues (--kueue-config, policy kueue): two 8-GPU
// workloads of team-a on two 8-GPU nodes, the second admitted when the first finished because
// team-a's quota is 8 GPUs (recorded waits 0 and 3,570 s, mean 1,785 s). kueue replays that (+0%);
// topo, which knows no quota, starts both at once (-100%).
TEST_F(ClusterCli, KueueClusterQueuesGiveTheRecordedAdmissions) {
  const auto workload = [](const std::string& name, const std::string& created, const std::string& admitted,
                           const std::string& finished) {
    return R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"Workload","metadata":{"name":")" + name +
           R"(","namespace":"ml","creationTimestamp":")" + created +
           R"("},"spec":{"queueName":"lq","podSets":[{"name":"main","count":1,"template":{"spec":{"containers":[)"
           R"({"name":"c","resources":{"requests":{"nvidia.com/gpu":"8"}}}]}}}]},"status":{"admission":)"
           R"({"clusterQueue":"team-a","podSetAssignments":[{"name":"main","resourceUsage":{"nvidia.com/gpu":"8"}}]},)"
           R"("conditions":[)"
           R"({"type":"Admitted","status":"True","lastTransitionTime":")" +
           admitted + R"("},{"type":"Finished","status":"True","lastTransitionTime":")" + finished + R"("}]}})";
  };
  const std::string history =
      Write("workloads.json",
            R"({"kind":"List","items":[)" +
                workload("a", "2026-03-01T10:00:00Z", "2026-03-01T10:00:00Z", "2026-03-01T11:00:00Z") + "," +
                workload("b", "2026-03-01T10:00:30Z", "2026-03-01T11:00:00Z", "2026-03-01T12:00:00Z") + "]}");
  const std::string queues =
      Write("cq.json",
            R"({"kind":"List","items":[{"kind":"ClusterQueue","metadata":{"name":"team-a"},"spec":{"resourceGroups":[)"
            R"({"coveredResources":["nvidia.com/gpu"],"flavors":[{"name":"h100","resources":[{"name":"nvidia.com/gpu",)"
            R"("nominalQuota":8}]}]}]}}]})");
  const Result r = Run({"cluster", "--job-history", history, "--nodes", "2", "--gpu", "H100", "--policy", "kueue,topo",
                        "--kueue-config", queues});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("history  queue delay as recorded: mean 29.8 min"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("replayed mean against it: kueue +0% topo -100%"), std::string::npos) << r.out;
  EXPECT_NE(
      RunBad(
          {"cluster", "--job-history", history, "--nodes", "2", "--policy", "kueue", "--kueue-config",
           Write("bad.json", R"({"kind":"ClusterQueue","metadata":{"name":"x"},"spec":{"queueingStrategy":"LIFO"}})")})
          .find("bad.json: ClusterQueue 'x': spec.queueingStrategy 'LIFO' is not one of BestEffortFIFO, StrictFIFO"),
      std::string::npos);
}

TEST_F(ClusterCli, BadInputIsOneLineAndStatusTwo) {
  const std::string trace = Write("t.csv", kTrace);
  EXPECT_NE(
      RunBad({"cluster", "--job-history", trace, "--nodes", "1", "--policy", "lifo"}).find("unknown policy 'lifo'"),
      std::string::npos);
  EXPECT_NE(RunBad({"cluster", "--job-history", trace}).find("--nodes"), std::string::npos);
  EXPECT_NE(
      RunBad({"cluster", "--job-history", trace, "--nodes", "1", "--model", "no-such-model"}).find("no-such-model"),
      std::string::npos);
  const std::string bad = Write("bad.csv", "submit_s,gpus,run_s,colour\n0,1,10,red\n");
  EXPECT_NE(RunBad({"cluster", "--job-history", bad, "--nodes", "1"}).find("colour"), std::string::npos);
  EXPECT_NE(RunBad({"cluster", "--job-history", Write("e.csv", ""), "--nodes", "1"}).find("e.csv"), std::string::npos);
  // Rows that cannot be jobs are skipped with their lines, and the rest replayed.
  const std::string rows = Write("rows.csv", "submit_s,gpus,run_s\n0,0,10\n-5,1,10\n0,64,10\n0,1,10\n");
  const Result r = Run({"cluster", "--job-history", rows, "--nodes", "1", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["trace"]["jobs"], 1);
  ASSERT_EQ(j["trace"]["skipped"].size(), 3u);
  EXPECT_EQ(j["trace"]["skipped"][0]["line"], 2);
  EXPECT_EQ(j["trace"]["skipped"][1]["line"], 3);
  EXPECT_EQ(j["trace"]["skipped"][2]["line"], 4);
}

// A Slurm topology.conf (topology/block: two NVL72 racks) on --gpu GB300 nodes; without --gpu the
// file is refused, naming it.
TEST_F(ClusterCli, SlurmTopologyConfWithGpu) {
  const std::string trace = Write("t.csv", kTrace);
  const std::string conf =
      Write("topology.conf", "# two racks\nBlockName=rack1 Nodes=gb[001-018]\nBlockName=rack2 Nodes=gb[019-036]\n");
  const Result r =
      Run({"cluster", "--job-history", trace, "--topology", conf, "--gpu", "GB300", "--policy", "topo", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["cluster"]["nodes"], 36);
  EXPECT_EQ(j["cluster"]["gpus"], 144);
  EXPECT_EQ(j["cluster"]["domains"], 2);
  EXPECT_EQ(j["cluster"]["leaves"], 1);
  EXPECT_EQ(j["cluster"]["description"], "36 nodes of 4 GB300 (144 GPUs), NVLink domains of 18 nodes, one leaf");
  EXPECT_EQ(j["trace"]["jobs"], 3);
  EXPECT_EQ(j["policies"][0]["jobs_finished"], 3);
  EXPECT_NE(RunBad({"cluster", "--job-history", trace, "--topology", conf}).find("names no GPU: give the nodes' GPU"),
            std::string::npos);
}

// Issue 38: --trace is now --job-history and --cluster --topology. The old names still work,
// hidden from --help, with one line each on stderr and the same stdout; old and new together,
// or neither for the job history, are usage errors.
TEST_F(ClusterCli, OldFlagsTraceAndClusterStillWork) {
  const std::string trace = Write("t.csv", kTrace);
  const std::string topology = Write("c.toml", "[[nodes]]\ncount = 2\ngpu = \"H100\"\n");
  for (const char* json : {"--quiet", "--json"}) {
    const Result now = Run({"cluster", "--job-history", trace, "--topology", topology, "--policy", "fifo,topo", json});
    ASSERT_EQ(now.status, 0) << now.err;
    EXPECT_EQ(now.err, "");
    const Result old = Run({"cluster", "--trace", trace, "--cluster", topology, "--policy", "fifo,topo", json});
    ASSERT_EQ(old.status, 0) << old.err;
    EXPECT_EQ(old.out, now.out);
    EXPECT_EQ(old.err,
              "paratune: --trace is deprecated; use --job-history\n"
              "paratune: --cluster is deprecated; use --topology\n");
  }
  const Result old = Run({"cluster", "--nodes", "1", "--trace=" + trace, "--quiet"});
  EXPECT_EQ(old.status, 0) << old.err;
  EXPECT_EQ(old.err, "paratune: --trace is deprecated; use --job-history\n");

  EXPECT_EQ(RunBad({"cluster", "--trace", trace, "--job-history", trace, "--nodes", "1"}),
            "--trace is the old name of --job-history; give only --job-history");
  EXPECT_EQ(RunBad({"cluster", "--job-history", trace, "--topology", topology, "--cluster", topology}),
            "--cluster is the old name of --topology; give only --topology");
  EXPECT_EQ(RunBad({"cluster", "--nodes", "1"}), "--job-history is required");
  EXPECT_EQ(RunBad({"cluster", "--trace", trace, "--trace", trace, "--nodes", "1"}),
            "--trace is given 2 times; give it once");

  const Result help = Run({"cluster", "--help"});
  EXPECT_CONTAINS(help.out, "--job-history TEXT REQUIRED");
  EXPECT_CONTAINS(help.out, "--topology TEXT");
  EXPECT_EQ(help.out.find("--trace "), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("--cluster "), std::string::npos) << help.out;
}

// The acceptance figures on the Philly-derived trace (docs/cluster.md): on 64 nodes of 8 GPUs
// topology-aware placement splits no job of <= 8 GPUs and queues less than FIFO first fit at
// equal or higher utilisation.
TEST_F(ClusterCli, PhillyTopologyAwareBeatsFifo) {
  PARATUNE_SHARED_OR_SKIP(philly, "cluster-traces/philly-pollux/philly.csv");
  const Result r =
      Run({"cluster", "--job-history", philly, "--nodes", "64", "--gpu", "H100", "--policy", "fifo,topo", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["trace"]["jobs"], 82247);
  const auto& fifo = j["policies"][0];
  const auto& topo = j["policies"][1];
  EXPECT_EQ(topo["split_placements_le8"], 0);
  EXPECT_GT(fifo["split_placements_le8"].get<int>(), 1000);
  EXPECT_LT(topo["queue_delay_s"]["mean"].get<double>(), fifo["queue_delay_s"]["mean"].get<double>());
  EXPECT_GE(topo["utilization"].get<double>(), fifo["utilization"].get<double>() - 1e-9);
}

}  // namespace
}  // namespace paratune::cli_test
