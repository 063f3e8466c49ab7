#include "analysis/call_stack.h"

#include <gtest/gtest.h>

#include <string>

namespace paratune {
namespace {

// The walk as "+i(parent)" / "-i" tokens.
std::string Walk(const std::vector<StackEvent>& events) {
  std::string out;
  for (const StackStep& s : WalkCallStack(events))
    out +=
        s.enter ? "+" + std::to_string(s.index) + "(" + std::to_string(s.parent) + ")" : "-" + std::to_string(s.index);
  return out;
}

// The cases of compare_events' docstring (hta/common/call_stack.py at f4d0062).
TEST(CallStack, NestsAsHtaComparesEvents) {
  // 1. different times: 2 [2, 7) inside 1 [0, 10)
  EXPECT_EQ(Walk({{1, 0, 10}, {2, 2, 5}}), "+1(-1)+2(1)-2-1");
  // 2. same start: the longer is the parent
  EXPECT_EQ(Walk({{2, 0, 5}, {1, 0, 10}}), "+1(-1)+2(1)-2-1");
  // 3./4. one ends where the next starts: siblings
  EXPECT_EQ(Walk({{1, 0, 10}, {2, 10, 5}}), "+1(-1)-1+2(-1)-2");
  // 5. same start and duration: the lower index is the parent
  EXPECT_EQ(Walk({{2, 0, 10}, {1, 0, 10}}), "+1(-1)+2(1)-2-1");
  // a zero-length event at the start of another: inside it
  EXPECT_EQ(Walk({{1, 0, 10}, {2, 0, 0}}), "+1(-1)+2(1)-2-1");
  // negative durations count as 0
  EXPECT_EQ(Walk({{1, 0, 10}, {2, 3, -4}}), "+1(-1)+2(1)-2-1");
}

// Partial overlap: an end pops whatever is on top, as HTA does, so 2 stays 1's child.
TEST(CallStack, PartialOverlapPopsTheTop) {
  EXPECT_EQ(Walk({{1, 0, 10}, {2, 5, 10}, {3, 20, 1}}), "+1(-1)+2(1)-2-1+3(-1)-3");
}

// 200,000 nested events: the walk is iterative, no recursion to overflow.
TEST(CallStack, DeepNestingIsSafe) {
  std::vector<StackEvent> events;
  const int n = 200000;
  for (int i = 0; i < n; ++i) events.push_back({static_cast<uint32_t>(i), i, 2 * (n - i)});
  const std::vector<StackStep> walk = WalkCallStack(events);
  ASSERT_EQ(walk.size(), 2u * n);
  EXPECT_EQ(walk[1].parent, 0);
  EXPECT_EQ(walk[n - 1].index, static_cast<uint32_t>(n - 1));
  EXPECT_FALSE(walk[n].enter);
}

}  // namespace
}  // namespace paratune
