#include "util/percent_encode.h"

#include <gtest/gtest.h>

namespace paratune {
namespace {

// RFC 3986 section 2.3's unreserved set kept; the rest as %XX (section 2.1: upper-case hex).
TEST(PercentEncode, KeepsUnreservedAndEncodesEveryOtherByte) {
  EXPECT_EQ(PercentEncode("Run-1.2_x~"), "Run-1.2_x~");
  EXPECT_EQ(PercentEncode("a b/c?d=e&f#g%"), "a%20b%2Fc%3Fd%3De%26f%23g%25");
  EXPECT_EQ(PercentEncode("\xc3\xa9"), "%C3%A9");  // UTF-8 "é", byte by byte
  EXPECT_EQ(PercentEncode(std::string_view("\0\xff", 2)), "%00%FF");
  EXPECT_EQ(PercentEncode(""), "");
}

}  // namespace
}  // namespace paratune
