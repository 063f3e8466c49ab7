// Validation CSV rows to registry records and back (published_run_record.h): the scenario read
// back estimates bit for bit as the row did, the figures and tags carried, the rows that cannot
// be recorded named with their reason, and the fit's starting calibration taken from the catalog.
#include "runs/published_run_record.h"

#include <gtest/gtest.h>

#include "step/estimate.h"
#include "util/test_util.h"
#include "validate/published_runs_test_util.h"

namespace paratune {
namespace {

const std::string kCsv =
    std::string(test::kPublishedRunsHeader) +
    "gpt-6.7b-tp2,lab,t,GPT 6.7B,dense,32,4096,16384,32,32,51200,2048,,,H100-SXM,H100,8,8,2,1,,4,1,,yes,,1,256,"
    "selective,bf16,BF16,tokens_per_s_per_gpu,4000,4000,16.38,d,,high,,\n"
    "gpt-13b-pp2,lab,t,GPT 13B,dense,40,5120,20480,40,40,51200,2048,,,H100-SXM,H100,16,8,4,2,,2,1,,yes,,1,256,"
    "full,bf16,BF16,tokens_per_s_per_gpu,2000,2000,,d,,medium,,\n"
    "no-target,lab,t,GPT 1.3B,dense,24,2048,8192,16,16,51200,2048,,,H100-SXM,H100,8,8,1,1,,8,1,,yes,,4,256,"
    "selective,bf16,BF16,tokens_per_s_per_gpu,,,,d,,high,,\n"
    "bad-layout,lab,t,GPT 1.3B,dense,24,2048,8192,16,16,51200,2048,,,H100-SXM,H100,8,8,3,1,,8,1,,yes,,4,256,"
    "selective,bf16,BF16,tokens_per_s_per_gpu,100,100,,d,,high,,\n";

TEST(PublishedRunRecord, RowsBecomeMeasuredRunsAndReadBackExactly) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const std::vector<PublishedRun> rows = ReadPublishedRuns(kCsv, "lab.csv", hw);
  const CsvRecords in = RecordsOfPublishedRuns(rows, "lab");
  ASSERT_EQ(in.records.size(), 2u);
  ASSERT_EQ(in.skipped.size(), 2u);
  EXPECT_EQ(in.skipped[0].first, "no-target");
  EXPECT_EQ(in.skipped[0].second, "not modelable: no target");
  EXPECT_EQ(in.skipped[1].first, "bad-layout");
  EXPECT_EQ(
      in.skipped[1].second.rfind("the cost model rejects its layout: invalid layout: world size 8 is not divisible by "
                                 "tp*pp*cp = 3*1*1 = 3;",
                                 0),
      0u)
      << in.skipped[1].second;

  const RunRecord& r = in.records[0];
  EXPECT_EQ(r.name, "gpt-6.7b-tp2");
  EXPECT_EQ(r.cluster, "lab");
  EXPECT_EQ(r.model, "GPT 6.7B");
  EXPECT_EQ(r.gpu, "H100-SXM");
  EXPECT_EQ(r.gpus, 8);
  EXPECT_EQ(r[Metric::kTokensPerSPerGpu].measured, 4000);
  EXPECT_EQ(r[Metric::kStepTime].measured, 16.38);
  EXPECT_FALSE(HasFigure(in.records[1][Metric::kStepTime].measured));  // the row gives none
  const Estimate e = EstimateStep(rows[0].model, rows[0].cluster, rows[0].training, rows[0].layout);
  EXPECT_EQ(r[Metric::kTokensPerSPerGpu].predicted, e.tokens_per_s_per_gpu);
  EXPECT_EQ(r[Metric::kStepTime].predicted, e.step_time_s);
  EXPECT_EQ(r[Metric::kMfu].predicted, e.mfu);
  const std::vector<std::pair<std::string, std::string>> tags = {
      {"confidence", "high"}, {"precision", "bf16"}, {"source", "lab"}};
  EXPECT_EQ(r.tags, tags);
  EXPECT_EQ(RecordsOfPublishedRuns(rows, "").records[0].cluster, "H100-SXM");  // no cluster given: the GPU

  const RunsToFit back = PublishedRunsOfRecords(in.records, hw);
  ASSERT_EQ(back.runs.size(), 2u);
  EXPECT_TRUE(back.skipped.empty());
  for (size_t i = 0; i < 2; ++i) {
    const PublishedRun& p = back.runs[i];
    EXPECT_TRUE(p.modelable);
    EXPECT_EQ(p.id, in.records[i].name);
    EXPECT_EQ(p.target_tokens_per_s_per_gpu, in.records[i][Metric::kTokensPerSPerGpu].measured);
    EXPECT_EQ(EstimateStep(p.model, p.cluster, p.training, p.layout).tokens_per_s_per_gpu,
              in.records[i][Metric::kTokensPerSPerGpu].predicted)
        << p.id;
  }
  EXPECT_EQ(back.runs[0].confidence, "high");
  EXPECT_EQ(back.runs[1].confidence, "medium");
}

TEST(PublishedRunRecord, TheFitStartsFromTheCatalogAsItStandsAndSkipsWhatItCannotUse) {
  HardwareCatalog hw = HardwareCatalog::BuiltIn();
  CsvRecords in = RecordsOfPublishedRuns(ReadPublishedRuns(kCsv, "lab.csv", hw), "lab");
  hw.Merge("[calibration.hopper]\ngemm_bf16 = 0.5\n", "override.toml");
  RunRecord no_scenario = in.records[0];
  no_scenario.name = "estimate-only";
  no_scenario.scenario_json.clear();
  RunRecord no_measure = in.records[0];
  no_measure.name = "predicted-only";
  no_measure[Metric::kTokensPerSPerGpu].measured = kNoFigure;
  RunRecord broken = in.records[0];
  broken.name = "broken";
  broken.scenario_json = "{\"model\": 7}";
  in.records.insert(in.records.end(), {no_scenario, no_measure, broken});
  const RunsToFit back = PublishedRunsOfRecords(in.records, hw);
  ASSERT_EQ(back.runs.size(), 2u);
  for (const PublishedRun& p : back.runs) EXPECT_EQ(p.cluster.gpu.calibration.gemm_bf16, 0.5) << p.id;
  ASSERT_EQ(back.skipped.size(), 3u);
  EXPECT_EQ(back.skipped[0].second, "no scenario recorded (record it with `runs record --csv`)");
  EXPECT_EQ(back.skipped[1].second, "no measured tokens/s per GPU");
  EXPECT_EQ(back.skipped[2].first, "broken");
  EXPECT_NE(back.skipped[2].second.find("run 'broken' scenario"), std::string::npos) << back.skipped[2].second;
}

}  // namespace
}  // namespace paratune
