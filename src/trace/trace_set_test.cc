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
  const std::string dir = TestDataPath("traces/hta/trace_filter");  // copies of ../shared/traces/hta/trace_filter
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
  EXPECT_CONTAINS(InputErrorOf([] { ReadTraceSet({"/nonexistent/rank0.json"}); }),
                  "/nonexistent/rank0.json: no such file");
  // The same file twice said "rank 0 also comes from" itself.
  const std::string one = std::string(PARATUNE_SOURCE_DIR) + "/testdata/traces/hta/trace_filter/sampled_rank-0.json.gz";
  EXPECT_EQ(InputErrorOf([&] { ReadTraceSet({one, one}); }), one + ": given twice (also as " + one + ")");
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

namespace paratune {
namespace {

namespace fs = std::filesystem;

class TraceSetPolicy : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) /
           ("paratune_trace_set_" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  fs::path dir_;
};

constexpr const char* kTwoKernels =
    R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "a", "ts": 10, "dur": 5, "args": {"stream": 7}},)"
    "\n"
    R"({"ph": "X", "cat": "kernel", "name": "b", "ts": 20, "dur": 5, "args": {"stream": 7}},)"
    "\n";

// A rank that yields no events is an error naming the file, whatever else the set holds.
TEST_F(TraceSetPolicy, ATraceWithoutEventsIsAnError) {
  const std::string empty = Write("rank1.json", R"({"traceEvents": []})");
  EXPECT_EQ(InputErrorOf([&] { ReadTraceSet({empty}); }),
            empty + ": no trace events to analyse (\"traceEvents\" is empty)");
  const std::string good = Write("rank0.json", std::string(kTwoKernels) + R"({"ph": "i", "name": "m", "ts": 1}]})");
  EXPECT_EQ(InputErrorOf([&] {
              ReadTraceSet({good, empty});
            }),
            empty + ": no trace events to analyse (\"traceEvents\" is empty)");
  const std::string instants =
      Write("rank2.json", R"({"traceEvents": [{"ph": "i", "cat": "x", "name": "m", "ts": 1}]})");
  EXPECT_CONTAINS(InputErrorOf([&] { ReadTraceSet({instants}); }), "only instant, flow, metadata or counter events");
  // Even a partial read needs an event.
  TraceSetOptions partial;
  partial.allow_partial = true;
  const std::string cut = Write("rank3.json", R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "a", "ts": 1)");
  EXPECT_CONTAINS(
      InputErrorOf([&] { ReadTraceSet({cut}, partial); }),
      cut + ": no trace events to analyse (the file ends inside an event of \"traceEvents\" before the first");
  EXPECT_EQ(ReadTraceSet({good}).at(0).events.size(), 2u);
}

// A truncated file is an error unless a partial trace is allowed; then the events read are kept.
TEST_F(TraceSetPolicy, ATruncatedFileNeedsAllowPartial) {
  const std::string cut =
      Write("rank0.json", std::string(kTwoKernels) + R"({"ph": "X", "cat": "kernel", "name": "c", "ts": 3)");
  EXPECT_EQ(
      InputErrorOf([&] { ReadTraceSet({cut}); }),
      cut +
          ": truncated: the file ends inside an event of \"traceEvents\" after 2 events (--allow-partial analyses the "
          "events read)");
  TraceSetOptions partial;
  partial.allow_partial = true;
  const std::vector<RankTrace> r = ReadTraceSet({cut}, partial);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].events.size(), 2u);
  EXPECT_EQ(r[0].warnings.truncated, 1);
}

// An unusable number is an error with its place, unless partial traces are allowed (skipped, counted).
TEST_F(TraceSetPolicy, AnUnusableNumberNeedsAllowPartial) {
  const std::string bad = Write("rank0.json", std::string(kTwoKernels) +
                                                  R"({"ph": "X", "cat": "kernel", "name": "c", "ts": 1e400, "dur": 1},)"
                                                  "\n" +
                                                  R"({"ph": "X", "cat": "kernel", "name": "d", "ts": 1, "dur": -2}]})");
  // Line 3 starts at byte 189 (the two kernel lines are 103 and 86 bytes).
  EXPECT_EQ(InputErrorOf([&] { ReadTraceSet({bad}); }), bad +
                                                            ":3: event 'c': field 'ts': 1e400 us does not fit 64-bit "
                                                            "ns (byte 189) (and 1 more); --allow-partial skips them");
  TraceSetOptions partial;
  partial.allow_partial = true;
  const std::vector<RankTrace> r = ReadTraceSet({bad}, partial);
  EXPECT_EQ(r.at(0).events.size(), 2u);
  EXPECT_EQ(r[0].warnings.bad_number, 1);
  EXPECT_EQ(r[0].warnings.negative_duration, 1);
}

}  // namespace
}  // namespace paratune
