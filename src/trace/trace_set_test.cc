#include "trace/trace_set.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "util/test_util.h"

namespace paratune {
namespace {

namespace fs = std::filesystem;

TEST(TraceSet, RankFromFileName) {
  EXPECT_EQ(RankFromFileName("/x/rank-3.json"), 3);
  EXPECT_EQ(RankFromFileName("rank_12.pt.trace.json.gz"), 12);
  EXPECT_EQ(RankFromFileName("RANK7.json"), 7);
  EXPECT_EQ(RankFromFileName("sampled_rank-1.json.gz"), 1);
  EXPECT_EQ(RankFromFileName("worker0.1623143566756.pt.trace.json.gz"), 0);
  EXPECT_EQ(RankFromFileName("rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"), 0);
  EXPECT_EQ(RankFromFileName("trace.json"), -1);
  EXPECT_EQ(RankFromFileName("rankings.json"), -1);
}

TEST(TraceSet, ReadsADirectoryInParallelSortedByRank) {
  const std::string dir = PARATUNE_SOURCE_DIR "/../shared/traces/hta/trace_filter";
  TraceSetOptions o;
  o.threads = 2;
  const std::vector<RankTrace> ranks = ReadTraceSet({dir}, o);
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0].rank, 0);
  EXPECT_EQ(ranks[1].rank, 1);
  EXPECT_EQ(ranks[0].rank_source, "distributedInfo");
  EXPECT_EQ(ranks[0].world_size, 128);
  // SOURCES.md: 1,759,570 and 1,690,403 bytes of JSON once decompressed.
  EXPECT_EQ(ranks[0].bytes_read, 1759570);
  EXPECT_EQ(ranks[1].bytes_read, 1690403);
}

TEST(TraceSet, ErrorsNameTheFile) {
  EXPECT_CONTAINS(InputErrorOf([] { ReadTraceSet({"/nonexistent/rank0.json"}); }), "/nonexistent/rank0.json: no such file");
  EXPECT_CONTAINS(InputErrorOf([] { ReadTraceSet({}); }), "no trace files given");
  const fs::path dir = fs::path(testing::TempDir()) / "paratune_trace_set_dup";
  fs::create_directories(dir);
  std::ofstream(dir / "a.json") << R"({"distributedInfo": {"rank": 2}, "traceEvents": []})";
  std::ofstream(dir / "b.json") << R"({"distributedInfo": {"rank": 2}, "traceEvents": []})";
  EXPECT_CONTAINS(InputErrorOf([&] { ReadTraceSet({dir.string()}); }), "rank 2 also comes from");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace paratune
