// paratune.cluster/1 both ways: a replay's document written, read back by ClusterDocumentFromJson
// and written again gives the same bytes (with and without models); a broken document names the
// file and the field.
#include "scheduling/cluster_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "scheduling/cluster_test_util.h"
#include "scheduling/policy.h"
#include "util/error.h"

namespace paratune {
namespace {

using testing::MakeJob;
using testing::MakeJobTrace;
using testing::SmallCluster;

// Two nodes, a production and experimental mix, two rows skipped, three policies.
struct Replayed {
  ClusterTopology topology = SmallCluster(2, 8, 1);
  JobTrace trace;
  ClusterRun run;

  Replayed() {
    trace = MakeJobTrace({MakeJob(0, 8, 10000, JobClass::kExperimental, 1000, 100),
                          MakeJob(100, 4, 3000, JobClass::kExperimental, 500, 10),
                          MakeJob(7500, 8, 2000, JobClass::kProduction, 1000, 100), MakeJob(9000, 2, 600)});
    trace.skipped = {{7, "no GPUs"}, {9, "submit time is not a number"}};
    run.topology = &topology;
    run.trace = &trace;
    run.options.min_run_s = 600;
    run.options.series_interval_s = 900;
    for (const char* name : {"fifo", "topo", "topo-preempt"}) {
      auto policy = FindPolicy(name).make();
      run.policies.push_back({name, Replay(topology, trace, *policy, nullptr, run.options)});
    }
  }
};

std::string Written(const ClusterDocument& d) { return ClusterDocumentJson(d).dump(); }

TEST(ClusterJson, WrittenReadAndWrittenAgainIsTheSameDocument) {
  const Replayed r;
  const nlohmann::json doc = ClusterJson(r.run);
  const ClusterDocument d = ClusterDocumentFromJson(doc, "c.json");
  EXPECT_EQ(Written(d), doc.dump());
  // What was read: the cluster, the trace, the options and each policy's figures and classes.
  EXPECT_EQ(d.cluster.gpus, 16);
  EXPECT_EQ(d.cluster.nodes, 2);
  EXPECT_EQ(d.cluster.description, r.topology.Describe());
  ASSERT_EQ(d.cluster.node_types.size(), 1u);
  EXPECT_EQ(d.cluster.node_types[0].gpus_per_node, 8);
  EXPECT_EQ(d.trace.jobs, 4);
  EXPECT_EQ(d.trace.skipped_count, 2);
  ASSERT_EQ(d.trace.skipped.size(), 2u);
  EXPECT_EQ(d.trace.skipped[1].line, 9);
  EXPECT_EQ(d.trace.skipped[1].reason, "submit time is not a number");
  EXPECT_EQ(d.options.min_run_s, 600);
  EXPECT_EQ(d.options.series_interval_s, 900);
  ASSERT_EQ(d.policies.size(), 3u);
  for (size_t i = 0; i < d.policies.size(); ++i) {
    const PolicyMetrics& want = r.run.policies[i].result.metrics;
    const PolicyMetrics& got = d.policies[i].metrics;
    EXPECT_EQ(d.policies[i].policy, r.run.policies[i].policy);
    EXPECT_EQ(got.goodput, want.goodput);
    EXPECT_EQ(got.preemptions, want.preemptions);
    EXPECT_EQ(got.queue_delay_s.cdf, want.queue_delay_s.cdf);
    EXPECT_EQ(got.fragmentation.pending_time_share, want.fragmentation.pending_time_share);
    ASSERT_EQ(got.by_class.size(), 2u);
    EXPECT_EQ(got.by_class[0].job_class, "production");
    EXPECT_EQ(got.by_class[0].jobs, 1);
    EXPECT_EQ(got.by_class[1].job_class, "experimental");
    EXPECT_EQ(got.by_class[1].queue_delay_s.p999, want.by_class[1].queue_delay_s.p999);
    EXPECT_FALSE(d.policies[i].series.time_s.empty());
    EXPECT_EQ(d.policies[i].series.time_s.size(), d.policies[i].series.queue_length.size());
    EXPECT_TRUE(d.policies[i].slowdown_histogram.from.empty());  // no models
  }
  // Without models there is no slowdown, effective MFU or histogram; jct_s has no p999 or CDF.
  const nlohmann::json& p = doc["policies"][0];
  EXPECT_FALSE(p.contains("mean_slowdown") || p.contains("effective_mfu") || p.contains("slowdown_histogram"));
  EXPECT_FALSE(p["jct_s"].contains("p999") || p["jct_s"].contains("cdf"));
  EXPECT_TRUE(p["time_to_first_run_s"].contains("p999"));
  EXPECT_FALSE(p["time_to_first_run_s"].contains("cdf"));
}

// A history that recorded its own queueing (Slurm, Alibaba) carries it in the trace summary,
// both ways; one without leaves the member out (the documents of before are unchanged).
TEST(ClusterJson, TheHistorysRecordedQueueDelayGoesBothWays) {
  Replayed r;
  EXPECT_FALSE(ClusterJson(r.run)["trace"].contains("measured_queue_delay_s"));
  for (size_t i = 0; i < r.trace.jobs.size(); ++i) r.trace.jobs[i].measured_wait_s = 100.0 * (i + 1);
  const nlohmann::json doc = ClusterJson(r.run);
  const nlohmann::json& m = doc["trace"]["measured_queue_delay_s"];
  EXPECT_EQ(m["jobs"], 4);
  EXPECT_EQ(m["mean"], 250.0);  // (100 + 200 + 300 + 400) / 4
  const ClusterDocument d = ClusterDocumentFromJson(doc, "c.json");
  ASSERT_TRUE(d.trace.measured_queue_delay_s);
  EXPECT_EQ(d.trace.measured_queue_delay_s->count, 4);
  EXPECT_EQ(d.trace.measured_queue_delay_s->p99, MeasuredQueueDelayOf(r.trace)->p99);
  EXPECT_EQ(Written(d), doc.dump());
}

// With models, the three members written only then are read back too.
TEST(ClusterJson, WithModelsTheSlowdownFiguresAndHistogramGoBothWays) {
  const Replayed r;
  ClusterDocument d = ClusterDocumentOf(r.run);
  for (ClusterPolicySummary& p : d.policies) {
    p.metrics.models = true;
    p.metrics.mean_slowdown = 1.125;
    p.metrics.effective_mfu = 0.375;
    p.slowdown_histogram = {{1.0, 1.5, 2.0}, {3, 0, 1}};
  }
  const nlohmann::json doc = ClusterDocumentJson(d);
  ASSERT_TRUE(doc["policies"][1].contains("slowdown_histogram"));
  const ClusterDocument back = ClusterDocumentFromJson(doc, "c.json");
  EXPECT_EQ(back.policies[1].metrics.mean_slowdown, 1.125);
  EXPECT_EQ(back.policies[1].metrics.effective_mfu, 0.375);
  EXPECT_EQ(back.policies[1].slowdown_histogram.jobs, (std::vector<int64_t>{3, 0, 1}));
  EXPECT_EQ(Written(back), doc.dump());
}

std::string ReadError(const nlohmann::json& doc) {
  try {
    ClusterDocumentFromJson(doc, "c.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ClusterJson, ABrokenDocumentNamesTheFileAndTheField) {
  const Replayed r;
  const nlohmann::json good = ClusterJson(r.run);
  nlohmann::json d = good;
  d["policies"][1].erase("goodput");
  EXPECT_EQ(ReadError(d), "c.json: field 'policies[1].goodput' is missing");
  d = good;
  d["policies"][0]["by_class"]["production"]["queue_delay_s"].erase("p999");
  EXPECT_EQ(ReadError(d), "c.json: field 'policies[0].by_class.production.queue_delay_s.p999' is missing");
  d = good;
  d["cluster"]["gpus"] = "sixteen";
  EXPECT_EQ(ReadError(d), "c.json: field 'cluster.gpus' is not an integer");
  d = good;
  d["policies"][2]["series"]["allocated_gpus"][0] = 0.5;
  EXPECT_EQ(ReadError(d), "c.json: field 'policies[2].series.allocated_gpus[0]' is not an integer");
  d = good;
  d["trace"]["skipped"][0].erase("reason");
  EXPECT_EQ(ReadError(d), "c.json: field 'trace.skipped[0].reason' is missing");
  // With models, the slowdown is required.
  d = good;
  d["policies"][0]["models"] = true;
  EXPECT_EQ(ReadError(d), "c.json: field 'policies[0].mean_slowdown' is missing");
  d = good;
  d["schema"] = "paratune.cluster/2";
  EXPECT_EQ(ReadError(d), "c.json: field 'schema' is 'paratune.cluster/2', not paratune.cluster/1");
  EXPECT_EQ(ReadError(nlohmann::json::array()), "c.json: not a JSON object (expected paratune.cluster/1)");
}

}  // namespace
}  // namespace paratune
