#include <gtest/gtest.h>

#include <string>

#include "diagnose/rules.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// An all_reduce_perf table (nccl-tests 2.13 layout, 8 ranks) whose 64 MiB row has 3 wrong
// elements out of place and 5 in place, and whose 128 MiB row has 1 in place.
std::string Log(const char* wrong64, const char* wrong64_inplace, const char* wrong128_inplace) {
  std::string s =
      "# nThread 1 nGpus 8 minBytes 33554432 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
      "validation: 1 graph: 0\n"
      "#\n"
      "#                                                              out-of-place                       in-place\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";
  s += "    33554432       8388608     float     sum      -1    200.0  167.77  293.60      0    200.0  167.77  293.60  "
       "    0\n";
  s += std::string("    67108864      16777216     float     sum      -1    380.0  176.60  309.05      ") + wrong64 +
       "    380.0  176.60  309.05      " + wrong64_inplace + "\n";
  s += std::string(
           "   134217728      33554432     float     sum      -1    750.0  178.96  313.18      0    750.0  178.96  "
           "313.18      ") +
       wrong128_inplace + "\n";
  s += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 305.0 \n#\n";
  return s;
}

std::vector<Finding> Check(const std::string& log) {
  DiagnoseInputs in;
  in.nccl_tests.push_back(ParseNcclTests(log, "ar.log"));
  std::vector<Finding> out;
  MakeCollectiveWrongResultsRule()->Check(in, &out);
  return out;
}

// #wrong above zero was ignored (issue 32): now a critical finding with the count (3 + 5 + 1),
// the sizes affected (2 of 3) and the line of the first (line 7: the 64 MiB row).
TEST(CollectiveWrongResults, WrongElementsAreCritical) {
  const std::vector<Finding> f = Check(Log("3", "5", "1"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "collective_wrong_results");
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_EQ(f[0].title, "nccl-tests all_reduce returned wrong data: 9 wrong elements in 2 of 3 message sizes");
  ASSERT_EQ(f[0].where.lines.size(), 1u);
  EXPECT_EQ(f[0].where.lines[0], "ar.log:7");
  EXPECT_CONTAINS(f[0].message, "the first at 67108864 bytes");
}

TEST(CollectiveWrongResults, CorrectRunsAndNotCheckedSaySomethingElse) {
  EXPECT_TRUE(Check(Log("0", "0", "0")).empty());
  EXPECT_TRUE(Check(Log("N/A", "N/A", "N/A")).empty());  // -c 0: not checked
}

}  // namespace
}  // namespace paratune
