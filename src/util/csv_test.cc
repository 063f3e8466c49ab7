#include "util/csv.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace paratune {
namespace {

TEST(Csv, QuotedFieldsEscapesAndCrlf) {
  const auto rows = ParseCsv("a,b,c\r\n1,\"x, y\",\"he said \"\"hi\"\"\"\r\n\n2,,\"multi\nline\"\n3,4,5", "t.csv");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1].fields[1], "x, y");
  EXPECT_EQ(rows[1].fields[2], "he said \"hi\"");
  EXPECT_EQ(rows[2].fields[1], "");
  EXPECT_EQ(rows[2].fields[2], "multi\nline");
  EXPECT_EQ(rows[2].line, 4);
  EXPECT_EQ(rows[3].line, 6);
  EXPECT_EQ(rows[3].fields[2], "5");
}

void ExpectError(const std::string& text, const std::string& needle) {
  try {
    ParseCsv(text, "f.csv");
    FAIL() << "no error for " << text;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// Issue 32: a UTF-8 byte-order mark made the first column "\xEF\xBB\xBFid" ("missing column 'id'").
TEST(Csv, ByteOrderMarkIsDropped) {
  const auto rows = ParseCsv("\xEF\xBB\xBFid,x\n1,2\n", "bom.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].fields[0], "id");
  EXPECT_EQ(rows[1].fields[1], "2");
}

TEST(Csv, BrokenInput) {
  ExpectError("a,b\n1,\"open", "f.csv:2: unterminated quoted field");
  ExpectError("a,b\n1,2,3\n", "f.csv:2: expected 2 fields, found 3");
  ExpectError("a,b\n1\n", "f.csv:2: expected 2 fields, found 1");
  ExpectError("a,b\nx\"y,2\n", "f.csv:2: quote inside an unquoted field");
  ExpectError("a,b\n\"x\"y,2\n", "f.csv:2: text after a closing quote");
  ExpectError(std::string("a,b\n1,\0\n", 8), "NUL byte");
  EXPECT_TRUE(ParseCsv("", "e.csv").empty());
}

}  // namespace
}  // namespace paratune
