// SvgWriter, escaping and number formats (svg.h), and the tables behind the charts (data_table.h).
#include "report/svg.h"

#include <cmath>

#include "report/chart_test_util.h"
#include "report/data_table.h"
#include "util/test_util.h"

namespace paratune {
namespace {

TEST(XmlEscape, EscapesMarkupAndQuotes) {
  EXPECT_EQ(XmlEscape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  EXPECT_EQ(XmlEscape("plain µs"), "plain µs");
}

TEST(SvgNumber, FixedTrimmedNoExponent) {
  EXPECT_EQ(SvgNumber(1.5), "1.5");
  EXPECT_EQ(SvgNumber(2.0), "2");
  EXPECT_EQ(SvgNumber(1.23456, 2), "1.23");
  EXPECT_EQ(SvgNumber(-0.001, 2), "0");  // not "-0"
  EXPECT_EQ(SvgNumber(-2.5, 1), "-2.5");
  EXPECT_EQ(SvgNumber(1e20, 0), "100000000000000000000");
  EXPECT_EQ(SvgNumber(std::nan("")), "0");
}

TEST(SvgValue, SixSignificantDigits) {
  EXPECT_EQ(SvgValue(1.0 / 3), "0.333333");
  EXPECT_EQ(SvgValue(0.000123456789), "0.000123457");
  EXPECT_EQ(SvgValue(123456789), "123456789");  // integers keep every digit
  EXPECT_EQ(SvgValue(4321.98765), "4321.99");
  EXPECT_EQ(SvgValue(0), "0");
  EXPECT_EQ(SvgValue(-2.5), "-2.5");
}

TEST(SvgWriter, ElementsAttributesAndText) {
  SvgWriter w;
  w.Open("g", {{"class", "bars"}, {"data-series", "a\"b"}});
  w.Empty("rect", {{"x", SvgNumber(1.25)}, {"width", "3"}});
  w.Text("title", "x < y & z");
  w.Close("g");
  EXPECT_EQ(
      w.str(),
      "<g class=\"bars\" data-series=\"a&quot;b\"><rect x=\"1.25\" width=\"3\"/><title>x &lt; y &amp; z</title></g>");
}

TEST(DataTable, EscapedNumericColumnsAndDetails) {
  DataTable t;
  t.columns = {"layout", "tokens/s"};
  t.numeric = {false, true};
  t.rows = {{"tp=2 <pp=4>", "1234.5"}};
  const std::string html = RenderTableDetails(t);
  EXPECT_EQ(html,
            "<details><summary>Data</summary><table class=\"chart-data\"><thead><tr><th scope=\"col\">layout</th>"
            "<th scope=\"col\" class=\"num\">tokens/s</th></tr></thead><tbody><tr><td>tp=2 &lt;pp=4&gt;</td>"
            "<td class=\"num\">1234.5</td></tr></tbody></table></details>");
  EXPECT_EQ(chart_test::WellFormed(html), "");
  t.rows.push_back({"only one cell"});
  EXPECT_CONTAINS(InputErrorOf([&] { RenderTable(t); }), "row 1 has 1 cells for 2 columns");
}

}  // namespace
}  // namespace paratune
