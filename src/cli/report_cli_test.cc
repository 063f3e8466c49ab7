// End-to-end tests of `paratune report`: the --json documents of plan (with a sweep), estimate,
// simulate (with its timeline), analyze, diagnose and cluster make one self-contained page with
// every section's charts; --compare; bad input is one line, status 2 and no file.
#include <gtest/gtest.h>

#include <filesystem>

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
      JsonOf("estimate.json", {"estimate", "--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", "16", "--tp", "2", "--pp", "2",
                               "--global-batch", "64", "--json"}),
      JsonOf("simulate.json", {"simulate", "--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", "16", "--tp", "2", "--pp", "4",
                               "--global-batch", "32", "--json", "--timeline"}),
      JsonOf("analyze.json", {"analyze", root + "/testdata/traces/hta/trace_filter", "--json"}),
      JsonOf("cluster.json", {"cluster", "--trace",
                              Write("t.csv", "submit_s,gpus,run_s,class\n0,8,1000,experimental\n10,8,100,production\n20,4,50,experimental\n"),
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
                         "analyze-json-analyze-ranks", "diagnose-json-diagnose-findings", "diagnose-json-diagnose-throughput-0",
                         "cluster-json-cluster-queue-production"})
    EXPECT_NE(html.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_LT(html.size(), size_t{4} << 20);
  // The Gantt has one row per stage.
  const size_t g = html.find("id=\"simulate-json-simulate-gantt\"");
  const std::string gantt = html.substr(g, html.find("</figure>", g) - g);
  int rows = 0;
  for (size_t p = gantt.find("class=\"gantt-row\""); p != std::string::npos; p = gantt.find("class=\"gantt-row\"", p + 1)) ++rows;
  EXPECT_EQ(rows, 4);
}

TEST_F(ReportCli, CompareTwoEstimates) {
  const std::string a = JsonOf("a.json", {"estimate", "--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", "8", "--tp", "1",
                                          "--global-batch", "64", "--json"});
  const std::string b = JsonOf("b.json", {"estimate", "--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", "8", "--tp", "8",
                                          "--global-batch", "64", "--json"});
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
    log += " [2024-05-01 12:00:" + std::string(i < 10 ? "0" : "") + std::to_string(i) + "] iteration " + std::to_string(i) +
           "/ 1000 | consumed samples: " + std::to_string(i * 64) +
           " | elapsed time per iteration (ms): 1000.0 | throughput per GPU (TFLOP/s/GPU): 390.0 | lm loss: 2.5 |\n";
  const Result r = Run({"report", std::string(PARATUNE_SOURCE_DIR) + "/testdata/traces/hta/trace_filter", Write("train.log", log),
                        "--out", out});
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
  EXPECT_NE(RunBad({"report", Write("z.json", "{\"schema\": \"paratune.models/1\"}"), "--out", out}).find("no report section"),
            std::string::npos);
  EXPECT_NE(RunBad({"report", Write("e.json", "{\"schema\": \"paratune.estimate/1\"}"), "--out", out}).find("e.json: field"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace paratune::cli_test
