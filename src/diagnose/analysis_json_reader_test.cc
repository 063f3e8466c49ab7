#include "diagnose/analysis_json_reader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/analysis_json.h"
#include "trace/trace_set.h"
#include "util/error.h"

namespace paratune {
namespace {

const std::string kRank0 =
    std::string(PARATUNE_SOURCE_DIR) + "/testdata/traces/hta/trace_filter/sampled_rank-0.json.gz";
const std::string kRank1 =
    std::string(PARATUNE_SOURCE_DIR) + "/testdata/traces/hta/trace_filter/sampled_rank-1.json.gz";

// What analyze writes, read back, gives the same figures the rules use.
TEST(AnalysisJsonReader, RoundTripsTheFiguresRulesUse) {
  const TraceAnalysis a = AnalyzeTraces(ReadTraceSet({kRank0, kRank1}));
  const TraceAnalysis b = ParseAnalysisJson(AnalysisJson(a).dump(), "a.json");
  ASSERT_EQ(b.ranks.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const RankAnalysis &x = a.ranks[i], &y = b.ranks[i];
    EXPECT_EQ(y.rank, x.rank);
    EXPECT_DOUBLE_EQ(y.temporal.window_s, x.temporal.window_s);
    EXPECT_DOUBLE_EQ(y.temporal.idle_s, x.temporal.idle_s);
    EXPECT_DOUBLE_EQ(y.dataloader_share, x.dataloader_share);
    ASSERT_EQ(y.iterations.size(), x.iterations.size());
    for (size_t k = 0; k < x.iterations.size(); ++k)
      EXPECT_DOUBLE_EQ(y.iterations[k].cpu_step_s, x.iterations[k].cpu_step_s);
    ASSERT_EQ(y.collectives.size(), x.collectives.size());
    for (size_t k = 0; k < x.collectives.size(); ++k) {
      EXPECT_EQ(y.collectives[k].kind, x.collectives[k].kind);
      EXPECT_DOUBLE_EQ(y.collectives[k].exposed_s, x.collectives[k].exposed_s);
      EXPECT_EQ(y.collectives[k].groups.size(), x.collectives[k].groups.size());
    }
    ASSERT_EQ(y.top_kernels.size(), x.top_kernels.size());
    EXPECT_EQ(y.launch.launches, x.launch.launches);
  }
  EXPECT_EQ(b.stragglers.ranks.size(), a.stragglers.ranks.size());
  EXPECT_EQ(b.stragglers.stragglers, a.stragglers.stragglers);
  EXPECT_EQ(b.profiler_steps, a.profiler_steps);
}

TEST(AnalysisJsonReader, BrokenInputNamesTheField) {
  auto msg = [](const std::string& text) {
    try {
      ParseAnalysisJson(text, "a.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(msg("{"), "a.json: not valid JSON");
  EXPECT_NE(msg(R"({"schema": "paratune.plan/1"})").find("a.json: .schema is 'paratune.plan/1'"), std::string::npos);
  EXPECT_NE(msg(R"({"schema": "paratune.analyze/1", "events": 1, "profiler_steps": [], "ranks": [{"rank": "x"}]})")
                .find("a.json: ranks[0].rank is not an integer"),
            std::string::npos);
  EXPECT_NE(msg(R"({"schema": "paratune.analyze/1", "events": 1, "profiler_steps": [1.5]})")
                .find(".profiler_steps[0] is not an integer"),
            std::string::npos);
  EXPECT_NE(msg(R"({"schema": "paratune.analyze/1", "events": 1})").find(".profiler_steps is missing"),
            std::string::npos);
  EXPECT_NE(msg("[1, 2]").find("a.json:  is not an object"), std::string::npos);
}

}  // namespace
}  // namespace paratune
