#include "util/text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

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

TEST(Text, AsciiUpperMapsOnlyAToZ) {
  EXPECT_EQ(AsciiUpper("h100-sxm5 {x}"), "H100-SXM5 {X}");  // '{' is 'z' + 1: not upper-cased to '['
  EXPECT_EQ(AsciiUpper("\xC3\xA9t\xC3\xA9"), "\xC3\xA9T\xC3\xA9");
}

TEST(Text, EqualsAsciiNoCaseIgnoresOnlyTheCaseOfAToZ) {
  EXPECT_TRUE(EqualsAsciiNoCase("Pending", "pending"));
  EXPECT_TRUE(EqualsAsciiNoCase("A100-SXM4-80GB", "a100-sxm4-80gb"));
  EXPECT_TRUE(EqualsAsciiNoCase("", ""));
  EXPECT_FALSE(EqualsAsciiNoCase("nan", "nan "));
  EXPECT_FALSE(EqualsAsciiNoCase("[", "{"));                // '[' is 'Z' + 1, not 'z' + 1 lower-cased
  EXPECT_FALSE(EqualsAsciiNoCase("\xC3\x89", "\xC3\xA9"));  // UTF-8 É and é: bytes, not letters
}

TEST(Text, ShownKeepsOneBoundedPrintableLine) {
  EXPECT_EQ(Shown("12.5 GB"), "12.5 GB");
  EXPECT_EQ(Shown("a\nb\tc\x7f\xC3\xA9"), "a?b?c???");  // control, DEL and UTF-8 bytes as '?'
  const std::string forty = "0123456789012345678901234567890123456789";
  EXPECT_EQ(Shown(forty + "x"), forty + "...");
  EXPECT_EQ(Shown(forty), forty);
  EXPECT_EQ(Shown(""), "");
  EXPECT_EQ(Quote("8 GPUs"), "'8 GPUs'");
  EXPECT_EQ(Quote(forty + "yy\n"), "'" + forty + "...'");
}

TEST(Text, ParseNumberTakesTheWholeTextUnderOneRangeRule) {
  double v = -1;
  EXPECT_EQ(ParseNumber("12.5", &v), NumberParse::kOk);
  EXPECT_EQ(v, 12.5);
  EXPECT_EQ(ParseNumber("3e2", &v), NumberParse::kOk);
  EXPECT_EQ(v, 300);
  EXPECT_EQ(ParseNumber("-.5", &v), NumberParse::kOk);
  EXPECT_EQ(v, -0.5);
  EXPECT_EQ(ParseNumber("1.7976931348623157e308", &v), NumberParse::kOk);  // DBL_MAX itself
  EXPECT_EQ(ParseNumber("0e-999", &v), NumberParse::kOk);                  // zero is no underflow
  EXPECT_EQ(v, 0);
  v = 7;
  EXPECT_EQ(ParseNumber("1e400", &v), NumberParse::kOutOfRange);
  EXPECT_EQ(ParseNumber("-1e400", &v), NumberParse::kOutOfRange);
  EXPECT_EQ(ParseNumber("1e-400", &v), NumberParse::kOutOfRange);
  EXPECT_EQ(v, 7);  // untouched when not kOk
  for (const char* s : {"inf", "-Infinity", "INF", "nan", "NaN", "-nan"})
    EXPECT_EQ(ParseNumber(s, &v), NumberParse::kNotFinite) << s;
  for (const char* s :
       {"", "+", "-", "+1", "+-1", "-+1", "+inf", " 1", "1 ", "1.5e", "0x10", "1,5", "1e400x", "12 GB", "infinite"})
    EXPECT_EQ(ParseNumber(s, &v), NumberParse::kNotANumber) << s;
  EXPECT_EQ(v, 7);
}

TEST(Text, ParseIntegerRefusesFractionsAndOverflow) {
  int64_t v = -1;
  EXPECT_EQ(ParseInteger("9223372036854775807", &v), NumberParse::kOk);
  EXPECT_EQ(v, INT64_MAX);
  EXPECT_EQ(ParseInteger("-9223372036854775808", &v), NumberParse::kOk);
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_EQ(ParseInteger("42", &v), NumberParse::kOk);
  EXPECT_EQ(v, 42);
  EXPECT_EQ(ParseInteger("9223372036854775808", &v), NumberParse::kOutOfRange);
  EXPECT_EQ(ParseInteger("-99999999999999999999", &v), NumberParse::kOutOfRange);
  for (const char* s : {"", "+", "+42", "1.0", "1e3", "inf", "0x1F", "--3", " 4", "4 "})
    EXPECT_EQ(ParseInteger(s, &v), NumberParse::kNotANumber) << s;
  EXPECT_EQ(v, 42);
}

}  // namespace
}  // namespace paratune
