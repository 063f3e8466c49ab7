#include "util/text.h"

#include <gtest/gtest.h>

namespace paratune {
namespace {

TEST(Text, TrimBlanksKeepsInnerText) {
  EXPECT_EQ(TrimBlanks(" \t 12.5 GB\r"), "12.5 GB");
  EXPECT_EQ(TrimBlanks("a b"), "a b");
  EXPECT_EQ(TrimBlanks(" \t\r "), "");
  EXPECT_EQ(TrimBlanks(""), "");
  EXPECT_EQ(TrimBlanks("\nx\n"), "\nx\n");  // line ends are the line reader's, not a field's
}

TEST(Text, AsciiLowerMapsOnlyAToZ) {
  EXPECT_EQ(AsciiLower("Megatron-Bridge@26.04+COMPILE"), "megatron-bridge@26.04+compile");
  EXPECT_EQ(AsciiLower("\xC3\x89t\xC3\xA9"), "\xC3\x89t\xC3\xA9");  // UTF-8 bytes untouched
  EXPECT_EQ(AsciiLower(""), "");
}

TEST(Text, EqualsAsciiNoCaseIgnoresOnlyTheCaseOfAToZ) {
  EXPECT_TRUE(EqualsAsciiNoCase("Pending", "pending"));
  EXPECT_TRUE(EqualsAsciiNoCase("A100-SXM4-80GB", "a100-sxm4-80gb"));
  EXPECT_TRUE(EqualsAsciiNoCase("", ""));
  EXPECT_FALSE(EqualsAsciiNoCase("nan", "nan "));
  EXPECT_FALSE(EqualsAsciiNoCase("[", "{"));                // '[' is 'Z' + 1, not 'z' + 1 lower-cased
  EXPECT_FALSE(EqualsAsciiNoCase("\xC3\x89", "\xC3\xA9"));  // UTF-8 É and é: bytes, not letters
}

}  // namespace
}  // namespace paratune
