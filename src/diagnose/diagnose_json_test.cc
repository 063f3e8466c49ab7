#include "diagnose/diagnose_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/timestamp.h"

namespace paratune {
namespace {

Diagnosis Sample() {
  Diagnosis d;
  d.inputs = {{"train.log", InputKind::kTrainingLog}, {"smi.csv", InputKind::kGpuTelemetry}};
  d.rules_run = {"throughput_change_point", "thermal_throttling"};
  Finding change;
  change.rule = "throughput_change_point", change.severity = Severity::kWarning, change.title = "slower after 400";
  change.message = "tokens/s fell 12%", change.loss_fraction = 0.05, change.fix = "check the data loader";
  change.evidence = {{"before", 1200, "tokens/s", "train.log"}, {"after", std::nan(""), "tokens/s", "train.log"}};
  change.where.iterations = {400};
  change.where.lines = {"train.log:812"};
  Finding hot;
  hot.rule = "thermal_throttling", hot.severity = Severity::kCritical, hot.loss_fraction = std::nan("");
  hot.where.time_ranges_s = {{*ParseTimestamp("2026-12-01 10:00:00"), *ParseTimestamp("2026-12-01 10:05:00")}};
  hot.where.gpus = {3};
  hot.where.gpu_pairs = {{0, 1}};
  hot.where.period_iterations = 50, hot.where.period_s = 12.5;
  d.findings = {change, hot};
  d.series.throughput = {{"train.log", "tokens_per_s", {1, 2}, {1200, std::nan("")}, {2}}};
  d.series.telemetry = {{"smi.csv", 3, {1e9, 1e9 + 1}, {1.98e9, std::nan("")}, {70, 85}}};
  return d;
}

// One field list both ways: the document read back and written again is the same document; the
// members of `where` are left out when empty, and the typed values come back.
TEST(DiagnoseJson, ReadingThenWritingReproducesTheDocument) {
  const nlohmann::json j = DiagnosisJson(Sample());
  EXPECT_EQ(j.at("findings")[0].at("where"), (nlohmann::json{{"iterations", {400}}, {"lines", {"train.log:812"}}}));
  EXPECT_EQ(j.at("findings")[1].at("where").at("time_ranges")[0][0], "2026-12-01 10:00:00");
  EXPECT_TRUE(j.at("findings")[1].at("loss_fraction").is_null());
  const Diagnosis back = DiagnosisFromJson(j, "d.json");
  EXPECT_EQ(DiagnosisJson(back), j);
  EXPECT_EQ(back.findings[1].severity, Severity::kCritical);
  EXPECT_EQ(back.findings[1].where.gpu_pairs, (std::vector<std::pair<int, int>>{{0, 1}}));
  EXPECT_DOUBLE_EQ(back.findings[1].where.time_ranges_s[0].second - back.findings[1].where.time_ranges_s[0].first, 300);
  EXPECT_TRUE(std::isnan(back.series.throughput[0].values[1]));
  EXPECT_EQ(back.inputs[1].kind, InputKind::kGpuTelemetry);
}

TEST(DiagnoseJson, BrokenDocumentsNameTheField) {
  auto error = [](nlohmann::json j) {
    try {
      DiagnosisFromJson(j, "d.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json j = DiagnosisJson(Sample());
  j["findings"][1]["where"]["time_ranges"][0][1] = "yesterday";
  EXPECT_EQ(error(j), "d.json: field 'findings[1].where.time_ranges[0]' is not a pair of timestamps");
  j = DiagnosisJson(Sample());
  j["findings"][0]["where"]["gpu_pairs"] = {{1}};
  EXPECT_EQ(error(j), "d.json: field 'findings[0].where.gpu_pairs[0]' is not a pair [a, b]");
  j = DiagnosisJson(Sample());
  j["findings"][0].erase("rule");
  EXPECT_EQ(error(j), "d.json: field 'findings[0].rule' is missing");
  j = DiagnosisJson(Sample());
  j["schema"] = "paratune.analyze/1";
  EXPECT_EQ(error(j), "d.json: field 'schema' is 'paratune.analyze/1', not paratune.diagnose/1");
}

}  // namespace
}  // namespace paratune
