// The report's inputs sorted (report/report_inputs.h): documents by their "paratune." schema,
// everything else raw; a directory of documents gives its documents and skips the rest; a
// directory without documents is one raw input.
#include "report/report_inputs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "util/error.h"

namespace paratune {
namespace {

namespace fs = std::filesystem;

class ReportInputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("paratune_report_inputs_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "docs");
    fs::create_directories(dir_ / "traces");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const fs::path& rel, const std::string& text) {
    std::ofstream(dir_ / rel) << text;
    return (dir_ / rel).string();
  }
  fs::path dir_;
};

TEST_F(ReportInputs, DocumentsByTheirSchemaEverythingElseRaw) {
  const std::string doc = Write("e.json", R"({"schema": "paratune.estimate/1"})");
  const std::string other = Write("o.json", R"({"schema": "someone.else/1"})");
  const std::string trace = Write("t.json", R"({"traceEvents": []})");
  const std::string notjson = Write("n.json", "not json");
  const std::string log = Write("train.log", "iteration 1");
  EXPECT_TRUE(IsParatuneDocument(doc));
  EXPECT_FALSE(IsParatuneDocument(other));
  EXPECT_FALSE(IsParatuneDocument(trace));
  EXPECT_FALSE(IsParatuneDocument(notjson));
  EXPECT_FALSE(IsParatuneDocument(log));
  EXPECT_FALSE(IsParatuneDocument((dir_ / "absent.json").string()));
  const SortedReportInputs s = SortReportInputs({doc, trace, log});
  EXPECT_EQ(s.documents, (std::vector<std::string>{doc}));
  EXPECT_EQ(s.raw, (std::vector<std::string>{trace, log}));
  EXPECT_TRUE(s.skipped.empty());
}

TEST_F(ReportInputs, ADirectoryOfDocumentsGivesThemSortedAndSkipsTheRest) {
  const std::string b = Write("docs/b.json", R"({"schema": "paratune.plan/1"})");
  const std::string a = Write("docs/a.json", R"({"schema": "paratune.estimate/1"})");
  const std::string readme = Write("docs/README", "notes");
  Write("docs/.hidden.json", R"({"schema": "paratune.plan/1"})");
  Write("traces/rank0.json", R"({"traceEvents": []})");
  const SortedReportInputs s = SortReportInputs({(dir_ / "docs").string(), (dir_ / "traces").string()});
  EXPECT_EQ(s.documents, (std::vector<std::string>{a, b}));
  EXPECT_EQ(s.skipped, (std::vector<std::string>{readme}));
  EXPECT_EQ(s.raw, (std::vector<std::string>{(dir_ / "traces").string()}));
}

TEST_F(ReportInputs, NoRawInputsNoDiagnosis) { EXPECT_TRUE(DiagnoseRawInputs({}).empty()); }

}  // namespace
}  // namespace paratune
