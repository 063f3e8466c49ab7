// End-to-end tests of `paratune report`: the --json documents of plan (with a sweep), estimate,
// simulate (with its timeline), analyze, diagnose and cluster make one self-contained page with
// every section's charts; --compare; bad input is one line, status 2 and no file.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace paratune::cli_test {
namespace {

class ReportCli : public Cli {
 protected:
  // Runs a command and writes its standard output to `name` under the test directory.
  std::string JsonOf(const std::string& name, const std::vector<std::string>& args) {
    const Result r = Run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return Write(name, r.out);
  }
};

TEST_F(ReportCli, EveryCommandsJsonMakesOnePage) {
  const std::string root = PARATUNE_SOURCE_DIR;
  std::vector<std::string> inputs = {
      JsonOf("plan.json", {"plan", "--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", "8", "--seq", "4096",
                           "--global-batch", "64", "--top", "4", "--sweep", "tp", "--json", "--quiet"}),
      JsonOf("estimate.json", {"estimate", "--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", "16", "--tp", "2",
                               "--pp", "2", "--global-batch", "64", "--json"}),
      JsonOf("simulate.json", {"simulate", "--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", "16", "--tp", "2",
                               "--pp", "4", "--global-batch", "32", "--json", "--timeline"}),
      JsonOf("analyze.json", {"analyze", root + "/testdata/traces/hta/trace_filter", "--json"}),
      JsonOf("cluster.json",
             {"cluster", "--job-history",
              Write("t.csv",
                    "submit_s,gpus,run_s,class\n0,8,1000,experimental\n10,8,100,production\n20,4,50,experimental\n"),
              "--nodes", "1", "--gpu", "H100", "--policy", "fifo,topo-preempt", "--min-run", "0", "--json"}),
  };
  std::string log;
  for (int i = 1; i <= 200; ++i)
    log += " [2024-05-01 12:" + std::to_string(10 + i / 60) + ":" + (i % 60 < 10 ? "0" : "") + std::to_string(i % 60) +
           "] iteration " + std::to_string(i) + "/ 1000 | consumed samples: " + std::to_string(i * 64) +
           " | elapsed time per iteration (ms): " + (i > 120 ? "1300.0" : "1000.0") +
           " | throughput per GPU (TFLOP/s/GPU): " + (i > 120 ? "300.0" : "390.0") + " | lm loss: 2.5 |\n";
  inputs.push_back(JsonOf("diagnose.json", {"diagnose", Write("train.log", log), "--json"}));
  const std::string out = (dir_ / "report.html").string();
  std::vector<std::string> args = {"report"};
  args.insert(args.end(), inputs.begin(), inputs.end());
  args.insert(args.end(), {"--out", out, "--title", "all kinds"});
  const Result r = Run(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string html = Slurp(out);
  for (const char* id : {"plan-json-plan-throughput", "plan-json-plan-sweep", "plan-json-plan-winner-memory",
                         "estimate-json-estimate-time", "estimate-json-estimate-memory", "simulate-json-simulate-gantt",
                         "analyze-json-analyze-ranks", "diagnose-json-diagnose-findings",
                         "diagnose-json-diagnose-throughput-0", "cluster-json-cluster-queue-production"})
    EXPECT_NE(html.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_LT(html.size(), size_t{4} << 20);
  // The Gantt has one row per stage.
  const size_t g = html.find("id=\"simulate-json-simulate-gantt\"");
  const std::string gantt = html.substr(g, html.find("</figure>", g) - g);
  int rows = 0;
  for (size_t p = gantt.find("class=\"gantt-row\""); p != std::string::npos;
       p = gantt.find("class=\"gantt-row\"", p + 1))
    ++rows;
  EXPECT_EQ(rows, 4);
}

// analyze --gpu adds each collective group's link ceiling (diagnose/link_ceiling.h) to the JSON,
// and the report draws it beside the measured bus bandwidth. testdata/report/traces/
// collectives_rank-0.json holds, in its analysed step, a 64 MiB BFloat16 all-reduce over 8 ranks
// in 400 us (busbw 67108864 x 1.75 / 400 us = 293.6 GB/s) and a 16 MiB Float all-to-all over 16
// ranks in 250 us (x 15/16 = 62.9 GB/s). On H100 (8 GPUs, 8 x 50 GB/s NICs per node, NVLink 450
// GB/s per direction): all-reduce in 8 is one node, NVLink 450 x 370/450 = 370 GB/s; all-to-all
// in 16 is 2 nodes, 400 / 8 = 50 GB/s per GPU x 2/(2-1) x 0.96 = 96 GB/s over the network.
TEST_F(ReportCli, AnalyzeGpuAddsTheLinkCeiling) {
  const std::string trace = std::string(PARATUNE_SOURCE_DIR) + "/testdata/report/traces/collectives_rank-0.json";
  const Result r = Run({"analyze", trace, "--gpu", "H100", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "paratune.analyze/1");
  EXPECT_EQ(j["link_ceiling"]["gpu"], "H100");
  const nlohmann::json& c = j["ranks"][0]["collectives"];
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0]["kind"], "all_reduce");
  EXPECT_NEAR(c[0]["busbw_bytes_per_s"].get<double>(), 67108864 * 1.75 / 400e-6, 1);
  ASSERT_EQ(c[0]["groups"].size(), 1u);
  EXPECT_EQ(c[0]["groups"][0]["group_size"], 8);
  EXPECT_NEAR(c[0]["groups"][0]["ceiling_bytes_per_s"].get<double>(), 370e9, 1);
  EXPECT_EQ(c[0]["groups"][0]["ceiling_link"], "nvlink");
  EXPECT_NEAR(c[0]["ceiling_bytes_per_s"].get<double>(), 370e9, 1);
  EXPECT_EQ(c[0]["ceiling_link"], "nvlink");
  EXPECT_EQ(c[1]["kind"], "all_to_all");
  EXPECT_NEAR(c[1]["busbw_bytes_per_s"].get<double>(), 16777216 * 15.0 / 16 / 250e-6, 1);
  EXPECT_EQ(c[1]["groups"][0]["group_size"], 16);
  EXPECT_NEAR(c[1]["groups"][0]["ceiling_bytes_per_s"].get<double>(), 96e9, 1);
  EXPECT_EQ(c[1]["groups"][0]["ceiling_link"], "network");
  EXPECT_NEAR(c[1]["ceiling_bytes_per_s"].get<double>(), 96e9, 1);
  // Without --gpu the members are there, null.
  const Result plain = Run({"analyze", trace, "--json"});
  ASSERT_EQ(plain.status, 0) << plain.err;
  const nlohmann::json p = nlohmann::json::parse(plain.out);
  EXPECT_TRUE(p["link_ceiling"].is_null());
  EXPECT_TRUE(p["ranks"][0]["collectives"][0]["ceiling_bytes_per_s"].is_null());
  EXPECT_TRUE(p["ranks"][0]["collectives"][0]["groups"][0]["ceiling_bytes_per_s"].is_null());
  // The report: a ceiling bar beside each busbw bar, with the JSON's value; none without --gpu.
  const std::string with = Write("with.json", r.out), without = Write("without.json", plain.out);
  const std::string out = (dir_ / "a.html").string(), out2 = (dir_ / "b.html").string();
  ASSERT_EQ(Run({"report", with, "--out", out}).status, 0);
  const std::string html = Slurp(out);
  EXPECT_NE(html.find("data-series=\"ceiling\" data-category=\"all_reduce\" data-value=\"370000000000\""),
            std::string::npos);
  EXPECT_NE(html.find("data-series=\"ceiling\" data-category=\"all_to_all\" data-value=\"96000000000\""),
            std::string::npos);
  ASSERT_EQ(Run({"report", without, "--out", out2}).status, 0);
  const std::string html2 = Slurp(out2);
  EXPECT_EQ(html2.find("data-series=\"ceiling\""), std::string::npos);
  EXPECT_NE(html2.find("ceiling not given (pass --gpu to analyze)"), std::string::npos);
  // An unknown GPU is the bad-input contract.
  EXPECT_NE(RunBad({"analyze", trace, "--gpu", "Z9000", "--json"}).find("--gpu"), std::string::npos);
}

TEST_F(ReportCli, CompareTwoEstimates) {
  const std::string a = JsonOf("a.json", {"estimate", "--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", "8", "--tp",
                                          "1", "--global-batch", "64", "--json"});
  const std::string b = JsonOf("b.json", {"estimate", "--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", "8", "--tp",
                                          "8", "--global-batch", "64", "--json"});
  const std::string out = (dir_ / "cmp.html").string();
  const Result r = Run({"report", a, b, "--compare", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string html = Slurp(out);
  EXPECT_NE(html.find("time.tp_comm_s"), std::string::npos);
  EXPECT_NE(html.find("class=\"differences\""), std::string::npos);
}

// Raw inputs (a trace pair, a training log) are analysed and diagnosed by the report itself.
TEST_F(ReportCli, RawInputsAreAnalysedAndDiagnosed) {
  const std::string out = (dir_ / "raw.html").string();
  std::string log;
  for (int i = 1; i <= 50; ++i)
    log += " [2024-05-01 12:00:" + std::string(i < 10 ? "0" : "") + std::to_string(i) + "] iteration " +
           std::to_string(i) + "/ 1000 | consumed samples: " + std::to_string(i * 64) +
           " | elapsed time per iteration (ms): 1000.0 | throughput per GPU (TFLOP/s/GPU): 390.0 | lm loss: 2.5 |\n";
  const Result r = Run({"report", std::string(PARATUNE_SOURCE_DIR) + "/testdata/traces/hta/trace_filter",
                        Write("train.log", log), "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string html = Slurp(out);
  EXPECT_NE(html.find("id=\"analysis-of-the-traces-given-analyze-ranks\""), std::string::npos);
  EXPECT_NE(html.find("id=\"diagnosis-of-the-inputs-given-diagnose-findings\""), std::string::npos);
  EXPECT_NE(html.find("id=\"diagnosis-of-the-inputs-given-diagnose-throughput-0\""), std::string::npos);
}

TEST_F(ReportCli, BadInputWritesNothing) {
  const std::string out = (dir_ / "never.html").string();
  // A .json without a paratune schema is a raw input, and neither is one diagnose reads.
  EXPECT_NE(RunBad({"report", Write("x.json", "{\"a\": 1}"), "--out", out}).find("x.json: not a file diagnose reads"),
            std::string::npos);
  EXPECT_NE(RunBad({"report", Write("y.json", "not json"), "--out", out}).find("y.json: not a file diagnose reads"),
            std::string::npos);
  EXPECT_NE(RunBad({"report", Write("z.json", "{\"schema\": \"paratune.models/1\"}"), "--out", out})
                .find("no report section"),
            std::string::npos);
  EXPECT_NE(
      RunBad({"report", Write("e.json", "{\"schema\": \"paratune.estimate/1\"}"), "--out", out}).find("e.json: field"),
      std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace paratune::cli_test
