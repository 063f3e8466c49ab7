// The run registry on every back end (runs_test_util.h RegistryBackends()): record/show round
// trips of each source kind with the values of testdata/report/*.json, idempotency, runs linked
// by name, compare's "which term moved", baselines, list filters, CSV export, bad input.
#include "runs/registry.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "runs/runs_json.h"
#include "runs/runs_test_util.h"
#include "runs/sha256.h"
#include "util/file.h"
#include "util/test_util.h"

namespace paratune {
namespace {

using runs_test::fs::path;

class Registry : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string tag = std::string(testing::UnitTest::GetInstance()->current_test_info()->name());
    std::string clean;
    for (char c : tag) clean += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    PARATUNE_BACKEND_OR_SKIP(GetParam());
    location_ = runs_test::FreshLocation(GetParam(), clean);
    dir_ = runs_test::ScratchDir(clean);  // the test's input files
    db_ = OpenRegistry(location_);
  }
  RecordResult Rec(const std::vector<std::string>& files, const std::string& name = "") {
    RecordOptions o;
    o.name = name;
    return Record(*db_, files, o);
  }
  int64_t Count(const std::string& table, const std::string& run) {
    return AsInt(db_->Query("SELECT COUNT(*) FROM " + table + " WHERE run = ?", {run})[0][0]);
  }
  int64_t Runs() { return AsInt(db_->Query("SELECT COUNT(*) FROM runs")[0][0]); }
  std::string Report(const std::string& f) { return TestDataPath("report/" + f); }

  std::string location_;
  runs_test::fs::path dir_;
  std::unique_ptr<Database> db_;
};

TEST_P(Registry, EstimateRoundTrip) {
  const RecordResult r = Rec({Report("estimate.json")}, "est");
  EXPECT_TRUE(r.created);
  EXPECT_EQ(r.files_added, 1);
  const RunRecord run = Show(*db_, "est");
  EXPECT_EQ(run.model, "llama-3.1-70b");
  EXPECT_EQ(run.gpu, "H100");
  EXPECT_EQ(run.gpus, 64);
  EXPECT_EQ(run.cluster, "64xH100");
  EXPECT_EQ(nlohmann::json::parse(run.layout_json).at("tp"), 8);
  // testdata/report/estimate.json: throughput, memory and time blocks.
  EXPECT_DOUBLE_EQ(run[Metric::kMfu].predicted, 0.40284736579498026);
  EXPECT_DOUBLE_EQ(run[Metric::kHfu].predicted, 0.40284736579498026);
  EXPECT_DOUBLE_EQ(run[Metric::kStepTime].predicted, 36.92794570894574);
  EXPECT_DOUBLE_EQ(run[Metric::kTokensPerSPerGpu].predicted, 887.3496581225204);
  EXPECT_DOUBLE_EQ(run[Metric::kTokensPerHour].predicted, 56790.378119841305 * 3600);
  EXPECT_DOUBLE_EQ(run[Metric::kPeakMemory].predicted, 53848327543.808);
  EXPECT_DOUBLE_EQ(run[Metric::kExposedTpComm].predicted, 4.628666281768421);
  EXPECT_DOUBLE_EQ(run[Metric::kBubbleTime].predicted, 0.8083114066758341);
  EXPECT_DOUBLE_EQ(run[Metric::kComputeTime].predicted, 31.46573721563638);
  EXPECT_DOUBLE_EQ(run[Metric::kBubbleShare].predicted, 0.021888880931711884);
  EXPECT_TRUE(std::isnan(run[Metric::kMfu].measured));
  ASSERT_EQ(run.sources.size(), 1u);
  EXPECT_EQ(run.sources[0].schema, "paratune.estimate/1");
  EXPECT_EQ(run.sources[0].sha256, Sha256Hex(ReadFile(Report("estimate.json"))));
}

TEST_P(Registry, PlanRecordsItsWinner) {
  Rec({Report("plan.json")}, "plan");
  const RunRecord run = Show(*db_, "plan");
  EXPECT_EQ(run.model, "llama-3.1-8b");
  EXPECT_EQ(run.gpus, 8);
  EXPECT_DOUBLE_EQ(run[Metric::kMfu].predicted, 0.4657434103039881);
  EXPECT_DOUBLE_EQ(run[Metric::kStepTime].predicted, 3.4306571570021265);
  EXPECT_DOUBLE_EQ(run[Metric::kTokensPerSPerGpu].predicted, 9551.522784233635);
  EXPECT_EQ(nlohmann::json::parse(run.layout_json).at("zero"), 3);
}

TEST_P(Registry, AnalyzeRoundTrip) {
  Rec({Report("analyze.json")}, "an");
  const RunRecord run = Show(*db_, "an");
  // Two ranks (analyze.json ranks[]): step_time.mean_s 0.607312 and 0.607904; compute_pct
  // 17.70695499435046 and 22.56598421106953; send_recv exposed 0.172259 and 0.134336 s in 1 step.
  EXPECT_DOUBLE_EQ(run[Metric::kStepTime].measured, (0.6073120000000001 + 0.607904) / 2);
  EXPECT_NEAR(run[Metric::kComputeTime].measured,
              (0.1770695499435046 * 0.6073120000000001 + 0.2256598421106953 * 0.607904) / 2, 1e-12);
  EXPECT_NEAR(run[Metric::kExposedPpComm].measured, (0.17225899999999988 + 0.13433599999999934) / 2, 1e-12);
  EXPECT_DOUBLE_EQ(run[Metric::kExposedOtherComm].measured, 0.0);
  EXPECT_DOUBLE_EQ(run[Metric::kDataLoaderShare].measured, 0.0);
  EXPECT_NEAR(run[Metric::kCommShare].measured, 0.1532975 / 0.607608, 1e-12);
  // The terms add up to the step time.
  double sum = 0;
  for (const auto& m : kMetrics)
    if (m.step_term && HasFigure(run[m.id].measured)) sum += run[m.id].measured;
  EXPECT_NEAR(sum, 0.607608, 1e-12);
  EXPECT_EQ(run.gpus, 128);                             // ranks[0].world_size
  EXPECT_TRUE(std::isnan(run[Metric::kMfu].measured));  // prediction: null
}

TEST_P(Registry, AnalyzeAndEstimateLinkByName) {
  Rec({Report("analyze.json")}, "job");
  const RecordResult second = Rec({Report("estimate.json")}, "job");
  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.files_added, 1);
  const RunRecord run = Show(*db_, "job");
  EXPECT_DOUBLE_EQ(run[Metric::kStepTime].measured, 0.607608);
  EXPECT_DOUBLE_EQ(run[Metric::kStepTime].predicted, 36.92794570894574);
  EXPECT_EQ(run.model, "llama-3.1-70b");
  EXPECT_EQ(run.sources.size(), 2u);
  EXPECT_EQ(Runs(), 1);
}

TEST_P(Registry, DiagnoseRoundTrip) {
  Rec({Report("diagnose.json")}, "diag");
  const RunRecord run = Show(*db_, "diag");
  ASSERT_EQ(run.findings.size(), 2u);
  EXPECT_EQ(run.findings[0].rule, "throughput_change_point");
  EXPECT_EQ(run.findings[0].severity, "warning");
  EXPECT_DOUBLE_EQ(run.findings[0].loss_fraction, 0.06448556947719782);
  EXPECT_EQ(run.findings[1].rule, "checkpoint_stall");
  EXPECT_DOUBLE_EQ(run.findings[1].loss_fraction, 0.05541141586360267);
  ASSERT_EQ(run.series.size(), 2u);
  const auto it = std::find_if(run.series.begin(), run.series.end(), [](const RunSeries& s) {
    return s.kind == "tflops_per_gpu (throughput_change_point_step/train.log)";
  });
  ASSERT_NE(it, run.series.end());
  ASSERT_EQ(it->y.size(), 600u);
  EXPECT_DOUBLE_EQ(it->x[0], 10.0);
  EXPECT_DOUBLE_EQ(it->y[0], 138.4);
  EXPECT_DOUBLE_EQ(it->y[4], 414.0);
}

TEST_P(Registry, ClusterRoundTrip) {
  Rec({Report("cluster.json")}, "sched");
  const RunRecord run = Show(*db_, "sched");
  EXPECT_EQ(run.gpus, 24);
  ASSERT_EQ(run.policies.size(), 4u);
  const auto fifo =
      std::find_if(run.policies.begin(), run.policies.end(), [](const auto& p) { return p.policy == "fifo"; });
  ASSERT_NE(fifo, run.policies.end());
  ASSERT_EQ(fifo->figures.size(), kPolicyMetrics.size());
  EXPECT_EQ(fifo->figures[0].first, "goodput");
  EXPECT_DOUBLE_EQ(fifo->figures[0].second, 0.575925925925926);
  EXPECT_EQ(fifo->figures[3].first, "makespan_s");
  EXPECT_DOUBLE_EQ(fifo->figures[3].second, 13500.0);
}

TEST_P(Registry, TrainingLogRoundTrip) {
  const path log = dir_ / "train.log";
  runs_test::WriteText(log, runs_test::MegatronLog(9));
  Rec({log.string()}, "log");
  const RunRecord run = Show(*db_, "log");
  // Lines 0..8: elapsed 1000..1006, 1000, 1001 ms -> sorted 1000,1000,1001,1001,1002,...: median 1002 ms.
  EXPECT_DOUBLE_EQ(run[Metric::kStepTime].measured, 1.002);
  ASSERT_EQ(run.series.size(), 2u);
  EXPECT_EQ(run.series[0].kind, "step_time_s");
  EXPECT_EQ(run.series[1].kind, "tflops_per_gpu");
  ASSERT_EQ(run.series[1].y.size(), 9u);
  EXPECT_DOUBLE_EQ(run.series[1].x[8], 90.0);
  EXPECT_DOUBLE_EQ(run.series[1].y[8], 403.0);  // 400 + 8 % 5
  EXPECT_EQ(run.sources[0].schema, "training_log");
}

TEST_P(Registry, SameFilesTwiceIsOneRunWithTheSameFigures) {
  const auto first = Rec({Report("analyze.json"), Report("estimate.json")});
  const RunRecord before = Show(*db_, first.name);
  const auto again = Rec({Report("estimate.json"), Report("analyze.json")});
  EXPECT_EQ(again.name, first.name);  // the default name is the files' content hash, in any order
  EXPECT_FALSE(again.created);
  EXPECT_EQ(again.files_added, 0);
  EXPECT_EQ(again.files_unchanged, 2);
  EXPECT_EQ(Runs(), 1);
  const RunRecord after = Show(*db_, first.name);
  EXPECT_EQ(after.sources.size(), 2u);
  EXPECT_EQ(after.content_hash, before.content_hash);
  EXPECT_EQ(after.created_utc, before.created_utc);
  for (size_t i = 0; i < kMetricCount; ++i) {
    EXPECT_EQ(std::isnan(after.figures[i].measured), std::isnan(before.figures[i].measured));
    if (HasFigure(after.figures[i].measured)) EXPECT_EQ(after.figures[i].measured, before.figures[i].measured);
    if (HasFigure(after.figures[i].predicted)) EXPECT_EQ(after.figures[i].predicted, before.figures[i].predicted);
  }
  EXPECT_EQ(Count("figures", first.name), Count("figures", first.name));
}

TEST_P(Registry, AnotherNameIsAnotherRun) {
  Rec({Report("estimate.json")}, "a");
  const auto b = Rec({Report("estimate.json")}, "b");
  EXPECT_TRUE(b.created);
  EXPECT_EQ(Runs(), 2);
  EXPECT_EQ(Count("figures", "a"), Count("figures", "b"));
}

// Two estimates whose difference is known: estimate.json, and a copy with 1.0 s more exposed TP
// communication and 0.25 s more bubble (step time 1.25 s longer). Compare must rank TP first with
// 80% of the difference, then the bubble with 20%, and nothing else.
TEST_P(Registry, CompareRanksTheTermThatMoved) {
  nlohmann::json doc = nlohmann::json::parse(ReadFile(Report("estimate.json")));
  const double step = doc["throughput"]["step_time_s"];
  doc["time"]["tp_comm_s"] = doc["time"]["tp_comm_s"].get<double>() + 1.0;
  doc["time"]["bubble_s"] = doc["time"]["bubble_s"].get<double>() + 0.25;
  doc["time"]["total_s"] = doc["time"]["total_s"].get<double>() + 1.25;
  doc["throughput"]["step_time_s"] = step + 1.25;
  const path slower = dir_ / "slower.json";
  runs_test::WriteText(slower, doc.dump());
  Rec({Report("estimate.json")}, "fast");
  Rec({slower.string()}, "slow");
  const Comparison c = Compare(*db_, "fast", "slow");
  EXPECT_FALSE(c.terms_measured);
  EXPECT_NEAR(c.step_delta_s, 1.25, 1e-12);
  ASSERT_EQ(c.terms.size(), 2u);
  EXPECT_EQ(c.terms[0].metric, Metric::kExposedTpComm);
  EXPECT_NEAR(c.terms[0].delta_s, 1.0, 1e-12);
  EXPECT_NEAR(c.terms[0].share, 0.8, 1e-12);
  EXPECT_EQ(c.terms[1].metric, Metric::kBubbleTime);
  EXPECT_NEAR(c.terms[1].share, 0.2, 1e-12);
  const auto st =
      std::find_if(c.figures.begin(), c.figures.end(), [](const auto& d) { return d.metric == Metric::kStepTime; });
  ASSERT_NE(st, c.figures.end());
  EXPECT_NEAR(st->abs_diff, 1.25, 1e-12);
  EXPECT_NEAR(st->rel_diff, 1.25 / step, 1e-12);
}

TEST_P(Registry, BaselinePerClusterAndModel) {
  RecordOptions o;
  o.name = "base";
  o.baseline = true;
  Record(*db_, {Report("estimate.json")}, o);
  EXPECT_EQ(InputErrorOf([&] { CompareWithBaseline(*db_, "base"); }).find("itself the baseline") != std::string::npos,
            true);
  Rec({Report("estimate.json")}, "next");
  const Comparison c = CompareWithBaseline(*db_, "next");
  EXPECT_EQ(c.a.name, "base");
  EXPECT_EQ(c.baseline_scope, "cluster=64xH100 model=llama-3.1-70b");
  Rec({Report("plan.json")}, "other");
  EXPECT_CONTAINS(InputErrorOf([&] { CompareWithBaseline(*db_, "other"); }),
                  "no baseline for 'cluster=8xH100 model=llama-3.1-8b'");
  EXPECT_EQ(SetBaseline(*db_, "other"), "cluster=8xH100 model=llama-3.1-8b");
  EXPECT_EQ(SetBaseline(*db_, "next", "team-a"), "team-a");
  const auto b = Baselines(*db_);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].scope, "cluster=64xH100 model=llama-3.1-70b");
  EXPECT_EQ(b[0].run, "base");
  EXPECT_CONTAINS(InputErrorOf([&] { SetBaseline(*db_, "nope"); }), "no run named 'nope'");
}

RunRecord Synthetic(const std::string& name, const std::string& model, const std::string& cluster, double tokens) {
  RunRecord r;
  r.name = name, r.model = model, r.cluster = cluster, r.gpu = "H100", r.gpus = 8;
  r.scenario_json = nlohmann::json{{"row", name}}.dump();
  r[Metric::kTokensPerSPerGpu].measured = tokens;
  return r;
}

TEST_P(Registry, ListFiltersNewestFirst) {
  for (int i = 0; i < 6; ++i) {
    RunRecord r =
        Synthetic(fmt::format("r{}", i), i % 2 ? "llama-3.1-8b" : "llama-3.1-70b", i < 3 ? "east" : "west", 1000 + i);
    if (i == 4) r.gpu = "B200";
    SetTag(r, "team", i % 3 == 0 ? "a" : "b");
    RecordRun(*db_, r);
    std::this_thread::sleep_for(std::chrono::milliseconds(3));  // distinct created_utc
  }
  auto names = [&](ListFilter f) {
    std::vector<std::string> out;
    for (const auto& r : List(*db_, f)) out.push_back(r.name);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names({}), (V{"r5", "r4", "r3", "r2", "r1", "r0"}));
  ListFilter f;
  ParseListFilter("model=llama-3.1-8b", f);
  EXPECT_EQ(names(f), (V{"r5", "r3", "r1"}));
  ParseListFilter("cluster=west", f);
  EXPECT_EQ(names(f), (V{"r5", "r3"}));
  f = {};
  ParseListFilter("tag=team=a", f);
  EXPECT_EQ(names(f), (V{"r3", "r0"}));
  f = {};
  ParseListFilter("gpu=B200", f);
  EXPECT_EQ(names(f), (V{"r4"}));
  f = {};
  ParseListFilter("name=r?", f);
  f.limit = 2;
  EXPECT_EQ(names(f), (V{"r5", "r4"}));
  EXPECT_EQ(CountRuns(*db_, f), 6);  // the limit cuts the list, not the count
  f = {};
  ParseListFilter("name=r_*", f);  // '_' is literal, not LIKE's one-character wildcard
  EXPECT_EQ(names(f), V{});
  f = {};
  ParseListFilter("since=2000-01-01", f);
  EXPECT_EQ(names(f).size(), 6u);
  f = {};
  ParseListFilter("since=2999-01-01", f);
  EXPECT_EQ(names(f).size(), 0u);
  EXPECT_EQ(CountRuns(*db_, f), 0);
  f = {};
  ParseListFilter("model=llama-3.1-8b", f);
  ParseListFilter("tag=team=b", f);
  f.limit = 1;
  EXPECT_EQ(names(f), (V{"r5"}));
  EXPECT_EQ(CountRuns(*db_, f), 2);  // r5 and r1: the tag and the model both match
  EXPECT_EQ(CountRuns(*db_, {}), 6);
  const auto listed = List(*db_, {});
  EXPECT_DOUBLE_EQ(listed[0][Metric::kTokensPerSPerGpu].measured, 1005);
  ASSERT_EQ(listed[0].tags.size(), 1u);
  EXPECT_CONTAINS(InputErrorOf([&] { ParseListFilter("colour=red", f); }), "unknown key 'colour'");
  EXPECT_CONTAINS(InputErrorOf([&] { ParseListFilter("since=yesterday", f); }), "since='yesterday'");
}

TEST_P(Registry, RecordRunIsIdempotentAndRunsOfClusterReturnsThem) {
  const RunRecord r = Synthetic("csv-row-1", "llama-3.1-8b", "lab", 4321.5);
  EXPECT_TRUE(RecordRun(*db_, r).created);
  const RecordResult again = RecordRun(*db_, r);
  EXPECT_FALSE(again.created);
  EXPECT_EQ(again.files_unchanged, 1);
  RecordRun(*db_, Synthetic("csv-row-2", "llama-3.1-8b", "lab", 1234.5));
  RecordRun(*db_, Synthetic("elsewhere", "llama-3.1-8b", "other", 1.0));
  const auto runs = RunsOfCluster(*db_, "lab");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].name, "csv-row-1");
  EXPECT_DOUBLE_EQ(runs[0][Metric::kTokensPerSPerGpu].measured, 4321.5);
  EXPECT_EQ(runs[0].scenario_json, R"({"row":"csv-row-1"})");
  EXPECT_EQ(Show(*db_, "csv-row-1").sources.size(), 1u);
  const std::vector<std::pair<std::string, int64_t>> clusters = {{"lab", 2}, {"other", 1}};
  EXPECT_EQ(Clusters(*db_), clusters);
  EXPECT_CONTAINS(InputErrorOf([&] { RecordRun(*db_, RunRecord{}); }), "must not be empty");
}

TEST_P(Registry, ExportCsvColumnsFromTheMetricTable) {
  Rec({Report("estimate.json")}, "est");
  const std::string csv = ExportCsv(*db_);
  const std::string header = csv.substr(0, csv.find('\n'));
  std::string expected = "name,created_utc,cluster,model,gpu,gpus,software";
  for (const auto& m : kMetrics) expected += std::string(",measured_") + m.name + ",predicted_" + m.name;
  EXPECT_EQ(header, expected);
  const std::string row = csv.substr(header.size() + 1);
  EXPECT_EQ(row.rfind("est,", 0), 0u);
  EXPECT_CONTAINS(row, ",64xH100,llama-3.1-70b,H100,64,,,0.40284736579498026,");  // software empty, measured_mfu empty
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2);
}

TEST_P(Registry, BadInputWritesNothing) {
  const path bad = dir_ / "bad.json";
  runs_test::WriteText(bad, "{\"schema\": \"paratune.estimate/1\", \"model\": {\"name\": 7}}");
  EXPECT_EQ(InputErrorOf([&] {
              Rec({Report("analyze.json"), bad.string()}, "x");
            }),
            bad.string() + ": field 'model.name' is not a string");
  const path odd = dir_ / "odd.json";
  runs_test::WriteText(odd, "{\"schema\": \"paratune.simulate/1\"}");
  EXPECT_CONTAINS(InputErrorOf([&] { Rec({odd.string()}, "x"); }),
                  "JSON schema 'paratune.simulate/1' is not one runs record reads");
  const path text = dir_ / "notes.txt";
  runs_test::WriteText(text, "hello\n");
  EXPECT_CONTAINS(InputErrorOf([&] { Rec({text.string()}, "x"); }), "notes.txt: not a file runs record reads");
  runs_test::WriteText(odd, "{\"schema\": ");
  EXPECT_CONTAINS(InputErrorOf([&] { Rec({odd.string()}, "x"); }), "odd.json: not valid JSON");
  EXPECT_CONTAINS(InputErrorOf([&] { Rec({(dir_ / "absent.json").string()}, "x"); }), "absent.json");
  EXPECT_CONTAINS(InputErrorOf([&] { Show(*db_, "x"); }), "no run named 'x'");
  EXPECT_EQ(Runs(), 0);
  EXPECT_EQ(AsInt(db_->Query("SELECT COUNT(*) FROM figures")[0][0]), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, Registry, testing::ValuesIn(runs_test::RegistryBackends()),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(RunRecord, MetricTableIsConsistent) {
  std::set<std::string> names;
  for (size_t i = 0; i < kMetricCount; ++i) {
    EXPECT_EQ(static_cast<size_t>(kMetrics[i].id), i) << kMetrics[i].name;  // indexed by its enum
    EXPECT_TRUE(names.insert(kMetrics[i].name).second) << kMetrics[i].name;
    EXPECT_EQ(MetricByName(kMetrics[i].name), kMetrics[i].id);
    if (kMetrics[i].step_term) EXPECT_STREQ(kMetrics[i].unit, "s");
  }
  EXPECT_EQ(MetricByName("nope"), std::nullopt);
  EXPECT_EQ(ExportCsvHeader().size(), 7 + 2 * kMetricCount);
  const nlohmann::json metrics = RunListJson({})["metrics"];
  ASSERT_EQ(metrics.size(), kMetricCount);
  EXPECT_EQ(metrics[static_cast<size_t>(Metric::kBubbleTime)]["name"], "bubble_s");
  EXPECT_EQ(metrics[static_cast<size_t>(Metric::kBubbleTime)]["step_term"], true);
  EXPECT_EQ(metrics[static_cast<size_t>(Metric::kMfu)]["better"], "higher");
  // docs/runs.md's figures table names every metric, with its unit and whether it is a term.
  const std::string doc = ReadFile(std::string(PARATUNE_SOURCE_DIR) + "/docs/runs.md");
  for (const auto& m : kMetrics) {
    const std::string row = fmt::format("| `{}` | {} | {} | {} |", m.name, m.unit,
                                        m.better == Better::kHigher ? "higher" : "lower", m.step_term ? "yes" : "");
    EXPECT_NE(doc.find(row), std::string::npos) << "docs/runs.md lacks the row " << row;
  }
}

}  // namespace
}  // namespace paratune
