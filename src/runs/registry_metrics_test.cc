// The registry's Prometheus page (runs/registry_metrics.h): every recorded figure, finding count
// and cluster-replay figure as a gauge with Prometheus's base units, names derived from the two
// metric lists; and, where Debian's `prometheus` package is installed, `promtool check metrics`
// accepts the page.
#include "runs/registry_metrics.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "runs/registry.h"
#include "runs/runs_test_util.h"
#include "util/prometheus_text.h"

namespace paratune {
namespace {

TEST(RegistryMetrics, NamesAreBaseUnitsAndUniqueForEveryFigure) {
  EXPECT_EQ(PrometheusRunMetricName(InfoOf(Metric::kMfu)), "paratune_run_mfu_ratio");
  EXPECT_EQ(PrometheusRunMetricName(InfoOf(Metric::kStepTime)), "paratune_run_step_time_seconds");
  EXPECT_EQ(PrometheusRunMetricName(InfoOf(Metric::kTokensPerSPerGpu)), "paratune_run_tokens_per_second_per_gpu");
  EXPECT_EQ(PrometheusRunMetricName(InfoOf(Metric::kPeakMemory)), "paratune_run_peak_memory_bytes");
  EXPECT_EQ(PrometheusRunMetricName(InfoOf(Metric::kExposedTpComm)), "paratune_run_exposed_tp_comm_seconds");
  std::set<std::string> names;
  for (const MetricInfo& m : kMetrics) {
    EXPECT_TRUE(IsPrometheusName(PrometheusRunMetricName(m))) << m.name;
    EXPECT_TRUE(names.insert(PrometheusRunMetricName(m)).second) << m.name;
  }
  for (const PolicyMetricInfo& m : kPolicyMetrics) {
    EXPECT_TRUE(IsPrometheusName(PrometheusPolicyMetricName(m))) << m.name;
    EXPECT_TRUE(names.insert(PrometheusPolicyMetricName(m)).second) << m.name;
  }
  EXPECT_TRUE(names.count("paratune_cluster_useful_gpu_seconds"));
  EXPECT_TRUE(names.count("paratune_cluster_makespan_seconds"));
  EXPECT_TRUE(names.count("paratune_cluster_queue_delay_p99_seconds"));
}

class RegistryMetricsPage : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = runs_test::ScratchDir("metrics");
    db_ = OpenRegistry((dir_ / "r.db").string());
    RunRecord r;
    r.name = "a", r.model = "llama-3.1-70b", r.cluster = "64xH100", r.gpu = "H100", r.gpus = 64;
    r[Metric::kMfu] = {0.4, 0.42};
    r[Metric::kStepTime].measured = 2.5;
    r[Metric::kPeakMemory].predicted = 7.0e10;
    r.findings = {{"pipeline_bubble", "warning", "bubble", 0.1},
                  {"slow_kernels", "warning", "slow", 0.05},
                  {"data_starvation", "critical", "loader", 0.2}};
    r.policies = {{"fifo", {{"utilization", 0.75}, {"useful_gpu_hours", 2.0}, {"makespan_s", 3600}}}};
    RecordRun(*db_, r);
  }
  runs_test::fs::path dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(RegistryMetricsPage, EachFigureFindingAndPolicyFigureIsAGauge) {
  const std::string text = RegistryMetricsText(*db_);
  const std::string run = "run=\"a\",model=\"llama-3.1-70b\",cluster=\"64xH100\",gpu=\"H100\"";
  EXPECT_NE(text.find("# TYPE paratune_run_mfu_ratio gauge\n"), std::string::npos) << text;
  EXPECT_NE(text.find("paratune_runs 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("paratune_run_mfu_ratio{" + run + ",side=\"measured\"} 0.4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("paratune_run_mfu_ratio{" + run + ",side=\"predicted\"} 0.42\n"), std::string::npos);
  EXPECT_NE(text.find("paratune_run_step_time_seconds{" + run + ",side=\"measured\"} 2.5\n"), std::string::npos);
  EXPECT_EQ(text.find("paratune_run_step_time_seconds{" + run + ",side=\"predicted\"}"), std::string::npos);
  EXPECT_NE(text.find("paratune_run_peak_memory_bytes{" + run + ",side=\"predicted\"} 70000000000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("paratune_run_findings{" + run + ",severity=\"warning\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("paratune_run_findings{" + run + ",severity=\"critical\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("paratune_cluster_utilization_ratio{run=\"a\",policy=\"fifo\"} 0.75\n"), std::string::npos);
  EXPECT_NE(text.find("paratune_cluster_useful_gpu_seconds{run=\"a\",policy=\"fifo\"} 7200\n"), std::string::npos);
  EXPECT_NE(text.find("paratune_cluster_makespan_seconds{run=\"a\",policy=\"fifo\"} 3600\n"), std::string::npos);
  // Figures no run has are left out: no empty families.
  EXPECT_EQ(text.find("paratune_run_bubble_seconds"), std::string::npos);
}

// Prometheus's own linter on the page (Debian's `prometheus` package ships promtool).
TEST_F(RegistryMetricsPage, PromtoolAcceptsThePage) {
  if (std::system("command -v promtool > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "promtool not found (Debian package prometheus; scripts/install-deps.sh installs it)";
  const auto page = dir_ / "metrics.txt";
  std::ofstream(page) << RegistryMetricsText(*db_);
  const auto out = dir_ / "promtool.txt";
  const int status =
      std::system(("promtool check metrics < " + page.string() + " > " + out.string() + " 2>&1").c_str());
  std::ifstream in(out);
  const std::string said((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(status, 0) << said;
  EXPECT_EQ(said, "") << said;
}

// The Grafana dashboard of the efficiency board (examples/grafana/paratune-efficiency.json): every
// panel queries Prometheus, every metric it names is one the page exports, and every query parses
// as PromQL (promtool check rules, with the dashboard's variables set to match anything).
TEST(RegistryMetrics, GrafanaDashboardQueriesTheExportedMetrics) {
  const std::string path = std::string(PARATUNE_SOURCE_DIR) + "/examples/grafana/paratune-efficiency.json";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  const nlohmann::json d = nlohmann::json::parse(in);
  std::set<std::string> exported = {"paratune_runs", "paratune_run_findings"};
  for (const MetricInfo& m : kMetrics) exported.insert(PrometheusRunMetricName(m));
  for (const PolicyMetricInfo& m : kPolicyMetrics) exported.insert(PrometheusPolicyMetricName(m));
  EXPECT_EQ(d.at("uid"), "paratune-efficiency");
  ASSERT_GE(d.at("panels").size(), 6u);
  std::string rules = "groups:\n  - name: dashboard\n    rules:\n";
  int n = 0;
  const std::regex metric("paratune_[a-z0-9_]+");
  for (const auto& p : d.at("panels")) {
    for (const auto& t : p.at("targets")) {
      EXPECT_EQ(t.at("datasource").at("type"), "prometheus") << p.at("title");
      std::string expr = t.at("expr").get<std::string>();
      for (std::sregex_iterator it(expr.begin(), expr.end(), metric), end; it != end; ++it)
        EXPECT_TRUE(exported.count(it->str())) << it->str() << " in " << p.at("title");
      expr = std::regex_replace(expr, std::regex("\\$[a-z]+"), ".*");
      rules += "      - record: dashboard:panel" + std::to_string(++n) + "\n        expr: '" + expr + "'\n";
    }
  }
  if (std::system("command -v promtool > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "promtool not found (Debian package prometheus): the queries' PromQL syntax is not checked";
  const auto dir = runs_test::ScratchDir("grafana");
  std::ofstream(dir / "rules.yml") << rules;
  const std::string cmd =
      "promtool check rules " + (dir / "rules.yml").string() + " > " + (dir / "out.txt").string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  std::ifstream said_in(dir / "out.txt");
  const std::string said((std::istreambuf_iterator<char>(said_in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(status, 0) << said << rules;
  EXPECT_NE(said.find("SUCCESS: " + std::to_string(n) + " rules found"), std::string::npos) << said;
}

}  // namespace
}  // namespace paratune
