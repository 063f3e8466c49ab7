#include "analysis/analysis_json.h"

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

// One field list both ways: the document read back and written again is the same document,
// member for member, also with the members only diagnose fills (the link ceilings).
TEST(AnalysisJsonReader, ReadingThenWritingReproducesTheDocument) {
  TraceAnalysis a = AnalyzeTraces(ReadTraceSet({kRank0, kRank1}));
  ASSERT_FALSE(a.ranks[0].collectives.empty());
  CollectiveStats& c = a.ranks[0].collectives[0];
  c.ceiling_bytes_per_s = 123e9, c.ceiling_link = "nvlink";
  if (!c.groups.empty()) c.groups[0].ceiling_derivation = "H100 NVLink 450 GB/s x 0.8";
  a.link_ceiling = LinkCeilingBasis{"H100", "hgx-h100", "packed"};
  const nlohmann::json written = AnalysisJson(a);
  const nlohmann::json again = AnalysisJson(AnalysisFromJson(written, "a.json"));
  EXPECT_EQ(again, written) << nlohmann::json::diff(written, again).dump();
  EXPECT_EQ(again.at("ranks")[0].at("collectives")[0].at("ceiling_bytes_per_s"), 123e9);
  EXPECT_TRUE(again.at("ranks")[1].at("collectives")[0].at("ceiling_bytes_per_s").is_null());
  EXPECT_EQ(again.at("link_ceiling").at("gpu"), "H100");
}

// Members that joined the schema later may be absent (older documents); the first ones may not.
TEST(AnalysisJsonReader, LaterMembersMayBeAbsent) {
  nlohmann::json doc = AnalysisJson(AnalyzeTraces(ReadTraceSet({kRank0})));
  for (const char* key :
       {"partial", "options", "bytes_read", "kernel_types", "cross_rank", "iterations_across_ranks", "link_ceiling"})
    doc.erase(key);
  nlohmann::json& rank = doc.at("ranks")[0];
  for (const char* key : {"hta_kernel_table", "idle", "warnings", "kernel_types", "hta_rounding_applied"})
    rank.erase(key);
  for (nlohmann::json& c : rank.at("collectives")) c.erase("groups");
  const TraceAnalysis b = AnalysisFromJson(doc, "old.json");
  EXPECT_EQ(b.ranks.size(), 1u);
  EXPECT_TRUE(b.ranks[0].idle.empty());
  doc.at("ranks")[0].erase("launch");
  try {
    AnalysisFromJson(doc, "old.json");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "old.json: field 'ranks[0].launch' is missing");
  }
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
  // One reader's messages (util/json_fields.h): the file, then the field's path.
  EXPECT_EQ(msg("{"), "a.json: not valid JSON");
  EXPECT_EQ(msg(R"({"schema": "paratune.plan/1"})"),
            "a.json: field 'schema' is 'paratune.plan/1', not paratune.analyze/1");
  EXPECT_EQ(msg(R"({"schema": "paratune.analyze/1", "events": 1, "profiler_steps": [], "ranks": [{"rank": "x"}]})"),
            "a.json: field 'ranks[0].rank' is not an integer");
  EXPECT_EQ(msg(R"({"schema": "paratune.analyze/1", "events": 1, "profiler_steps": [1.5]})"),
            "a.json: field 'profiler_steps[0]' is not an integer");
  EXPECT_EQ(msg(R"({"schema": "paratune.analyze/1", "events": 1})"), "a.json: field 'profiler_steps' is missing");
  EXPECT_EQ(msg("[1, 2]"), "a.json: not a JSON object (expected paratune.analyze/1)");
}

}  // namespace
}  // namespace paratune
