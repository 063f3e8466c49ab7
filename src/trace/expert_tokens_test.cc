#include "trace/expert_tokens.h"

#include <gtest/gtest.h>

#include <string>

#include "util/error.h"
#include "util/test_util.h"

namespace paratune {
namespace {

TEST(ExpertTokens, ReadsOneRowPerIterationAndLayerWithAbsentExpertsAsZero) {
  const std::string csv =
      "iteration,layer,expert,tokens\n"
      "100,0,0,512\n"
      "100,0,1,480\n"
      "100,0,3,1100\n"  // expert 2 absent: 0 tokens
      "100,1,0,700\n"
      "100,1,1,700\n"
      "100,1,2,700\n"
      "100,1,3,700\n"
      "200,0,0,600\n"
      "200,0,1,600\n"
      "200,0,2,600\n"
      "200,0,3,600\n";
  const ExpertTokens t = ParseExpertTokens(csv, "tokens.csv");
  EXPECT_EQ(t.path, "tokens.csv");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0].iteration, 100);
  EXPECT_EQ(t.rows[0].layer, 0);
  EXPECT_EQ(t.rows[0].line, 2);
  EXPECT_EQ(t.rows[0].tokens, (std::vector<double>{512, 480, 0, 1100}));
  EXPECT_EQ(t.rows[1].layer, 1);
  EXPECT_EQ(t.rows[1].line, 5);
  EXPECT_EQ(t.rows[1].tokens, (std::vector<double>{700, 700, 700, 700}));
  EXPECT_EQ(t.rows[2].iteration, 200);
  EXPECT_EQ(t.rows[2].line, 9);
}

TEST(ExpertTokens, AcceptsStepAndCountNamesAnyColumnOrderExtraColumnsAndCrlf) {
  const std::string csv =
      "Layer, Expert ,rank,\"count\",STEP\r\n"
      "3,1,0,10.5,7\r\n"
      "3,0,0,20,7\r\n";
  ASSERT_TRUE(LooksLikeExpertTokens(csv));
  const ExpertTokens t = ParseExpertTokens(csv, "x.csv");
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].iteration, 7);
  EXPECT_EQ(t.rows[0].layer, 3);
  EXPECT_EQ(t.rows[0].tokens, (std::vector<double>{20, 10.5}));
}

TEST(ExpertTokens, LooksLikeNeedsAllFourColumnsInTheFirstLine) {
  EXPECT_TRUE(LooksLikeExpertTokens("iteration,layer,expert,tokens\n1,2,3,4\n"));
  EXPECT_FALSE(LooksLikeExpertTokens("iteration,layer,tokens\n1,2,3\n"));
  EXPECT_FALSE(LooksLikeExpertTokens("timestamp,tokens_per_s\n"));
  EXPECT_FALSE(LooksLikeExpertTokens("[2024-01-01 00:00:00] iteration 1/ 10 | layer expert tokens"));
  EXPECT_FALSE(LooksLikeExpertTokens(""));
}

TEST(ExpertTokens, BrokenInputIsOneLineNamingFileLineAndField) {
  const std::string h = "iteration,layer,expert,tokens\n";
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"", "t.csv: empty file"},
      {h, "t.csv: header only"},
      {"iteration,layer,tokens\n1,2,3\n", "t.csv:1: header has no expert column"},
      {"iteration,layer,expert,tokens,step\n1,2,3,4,5\n", "t.csv:1: header names the iteration column twice"},
      {h + "1,0,0,5\n1,0,1\n", "t.csv:3: expected 4 fields"},  // truncated line
      {h + "1,0,0,many\n", "t.csv:2: field `tokens`: 'many' is not a number"},
      {h + "1,0,x,5\n", "t.csv:2: field `expert`: 'x' is not an integer"},
      {h + "1,0,-1,5\n", "t.csv:2: field `expert`: '-1' must be between 0 and 4095"},
      {h + "99999999999999999999,0,0,5\n", "t.csv:2: field `iteration`: '99999999999999999999' is out of range"},
      {h + "1,0,0,1e400\n", "t.csv:2: field `tokens`: '1e400' must be between 0 and 1e15"},
      {h + "1,0,0,nan\n", "t.csv:2: field `tokens`: 'nan' is not a number"},
      {h + "1,0,0,5\n1,0,0,6\n", "t.csv:3: field `expert`: expert 0 of layer 0 at iteration 1 given twice"},
      {h + "1,0,0,\"5\n", "t.csv:2: unterminated quoted field"},
      {std::string("\x1f\x8b\x08\0garbage", 11), "t.csv:1: NUL byte in CSV"},
  };
  for (const Case& c : cases) {
    const std::string e = InputErrorOf([&] { ParseExpertTokens(c.text, "t.csv"); });
    EXPECT_CONTAINS(e, c.message);
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

// Issue 32: all-zero counts were read (a layer that routed nothing looks perfectly balanced).
TEST(ExpertTokens, RefusesALayerThatRoutedNoToken) {
  EXPECT_EQ(InputErrorOf([] {
              ParseExpertTokens("iteration,layer,expert,tokens\n1,0,0,5\n1,0,1,7\n1,1,0,0\n1,1,1,0\n", "e.csv");
            }),
            "e.csv:4: layer 1 at iteration 1 routed no token to any expert (all counts 0)");
}

TEST(ExpertTokens, RefusesMoreCountsThanTheTableMayHold) {
  // 5000 groups, each naming expert 4095: 20 M cells, over the 16 M bound.
  std::string csv = "iteration,layer,expert,tokens\n";
  for (int i = 0; i < 5000; ++i) csv += std::to_string(i) + ",0,4095,1\n";
  EXPECT_CONTAINS(InputErrorOf([&] { ParseExpertTokens(csv, "big.csv"); }),
                  "more than the 16 M (iteration, layer, expert) counts");
}

TEST(ExpertTokens, ReadsAMillionRowsQuickly) {
  // 100 iterations x 40 layers x 256 experts = 1,024,000 rows (about 16 MB), parsed in well under
  // the one second diagnose has for all its inputs (timed by ctest's default limit otherwise).
  std::string csv = "iteration,layer,expert,tokens\n";
  csv.reserve(20 << 20);
  for (int it = 0; it < 100; ++it)
    for (int l = 0; l < 40; ++l)
      for (int e = 0; e < 256; ++e)
        csv += std::to_string(it) + "," + std::to_string(l) + "," + std::to_string(e) + ",128\n";
  const ExpertTokens t = ParseExpertTokens(csv, "m.csv");
  ASSERT_EQ(t.rows.size(), 4000u);
  EXPECT_EQ(t.rows.back().tokens.size(), 256u);
  EXPECT_EQ(t.rows.back().tokens[255], 128);
}

}  // namespace
}  // namespace paratune
