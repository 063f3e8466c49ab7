#include "util/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

namespace paratune {
namespace {

TEST(ThreadPool, ThreadCountIsCappedByItemsAndLimit) {
  EXPECT_EQ(ParallelThreads(3, 8), 3u);
  EXPECT_EQ(ParallelThreads(10, 2), 2u);
  EXPECT_EQ(ParallelThreads(0, 4), 1u);
  EXPECT_EQ(ParallelThreads(1, 0), 1u);
  EXPECT_GE(ParallelThreads(1000, 0), 1u);
}

TEST(ThreadPool, EveryIndexRunsExactlyOnce) {
  std::vector<std::atomic<int>> hits(1000);
  ParallelFor(hits.size(), 4, [&](size_t i) { hits[i].fetch_add(1); });
  for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), 1) << i;
  ParallelFor(0, 4, [](size_t) { FAIL() << "no items, no calls"; });
}

TEST(ThreadPool, TheLowestFailingIndexIsRethrownAfterAllRan) {
  std::atomic<int> ran{0};
  try {
    ParallelFor(20, 3, [&](size_t i) {
      ++ran;
      if (i == 17 || i == 3 || i == 9) throw std::runtime_error("item " + std::to_string(i));
    });
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "item 3");
  }
  EXPECT_EQ(ran.load(), 20);
}

}  // namespace
}  // namespace paratune
