#include "trace/name_table.h"

#include <gtest/gtest.h>

#include <string>

namespace paratune {
namespace {

TEST(NameTable, DenseIndicesInOrderOfFirstAppearance) {
  NameTable t;
  EXPECT_EQ(t.Intern("gemm"), 0u);
  EXPECT_EQ(t.Intern("nccl"), 1u);
  EXPECT_EQ(t.Intern("gemm"), 0u);
  EXPECT_EQ(t.Intern(""), 2u);
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t[1], "nccl");
  const std::vector<std::string> names = t.Take();
  EXPECT_EQ(names, (std::vector<std::string>{"gemm", "nccl", ""}));
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.Intern("again"), 0u);
}

// Names that share their first and last 48 bytes (and length) hash alike but stay distinct; the
// stored names outlive thousands of insertions (the map's keys view them).
TEST(NameTable, LongNamesDifferingInTheMiddleStayDistinct) {
  NameTable t;
  const std::string head(60, 'a'), tail(60, 'z');
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(t.Intern(head + std::to_string(1000 + i) + tail), static_cast<uint32_t>(i));
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(t.Intern(head + std::to_string(1000 + i) + tail), static_cast<uint32_t>(i));
  EXPECT_EQ(t[4999], head + "5999" + tail);
}

}  // namespace
}  // namespace paratune
