#include "util/timestamp.h"

#include <gtest/gtest.h>

namespace paratune {
namespace {

TEST(Timestamp, ParsesTheFormsLogsPrint) {
  // 2024-05-01 00:00:00 UTC is 1714521600 s after the epoch (19844 days).
  EXPECT_DOUBLE_EQ(*ParseTimestamp("2024-05-01 00:00:00"), 1714521600.0);
  EXPECT_DOUBLE_EQ(*ParseTimestamp("2024-05-01 12:34:56"), 1714521600.0 + 12 * 3600 + 34 * 60 + 56);
  EXPECT_DOUBLE_EQ(*ParseTimestamp("2024/05/01 12:34:56.250"), 1714521600.0 + 45296.25);
  EXPECT_DOUBLE_EQ(*ParseTimestamp("2024-05-01T12:34:56,5"), 1714521600.0 + 45296.5);
  EXPECT_DOUBLE_EQ(*ParseTimestamp("  1970-01-01 00:00:01 "), 1.0);
  EXPECT_DOUBLE_EQ(*ParseTimestamp("2024-02-29 00:00:00"), 1709164800.0);
}

TEST(Timestamp, RefusesWhatIsNotATimestamp) {
  EXPECT_FALSE(ParseTimestamp(""));
  EXPECT_FALSE(ParseTimestamp("2024-13-01 00:00:00"));
  EXPECT_FALSE(ParseTimestamp("2023-02-29 00:00:00"));
  EXPECT_FALSE(ParseTimestamp("2024-05-01 24:00:00"));
  EXPECT_FALSE(ParseTimestamp("2024-05-01 12:00"));
  EXPECT_FALSE(ParseTimestamp("2024-05-01 12:00:00 x"));
  EXPECT_FALSE(ParseTimestamp("2024-05/01 12:00:00"));
  EXPECT_FALSE(ParseTimestamp("2024-05-01 12:00:00."));
}

TEST(Timestamp, FormatsBack) {
  EXPECT_EQ(FormatTimestamp(1714521600.0 + 45296.9), "2024-05-01 12:34:56");
  EXPECT_EQ(FormatTimestamp(0), "1970-01-01 00:00:00");
  EXPECT_EQ(FormatTimestamp(-1), "1969-12-31 23:59:59");
  EXPECT_EQ(*ParseTimestamp(FormatTimestamp(1709164800.0)), 1709164800.0);
}

}  // namespace
}  // namespace paratune
