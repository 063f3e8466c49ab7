// SvgWriter: the one place SVG and HTML text is written for the report: elements with
// attributes, text content and attribute values escaped (&, <, >, ", '), numbers printed with
// at most `decimals` decimals and no exponent, so every chart file writes valid, compact markup.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace paratune {

// `s` escaped for HTML/SVG text and attribute values.
std::string XmlEscape(std::string_view s);
// A coordinate or value as text: fixed with up to `decimals` decimals, trailing zeros dropped,
// "-0" written as "0". Not finite: "0" (charts reject non-finite input before drawing).
std::string SvgNumber(double v, int decimals = 2);
// A data value for data-* attributes and tables: `significant` significant digits (enough to
// round-trip a shown value), no exponent, trailing zeros dropped. Not finite: "0".
std::string SvgValue(double v, int significant = 6);

// An attribute: name and already-formatted value (escaped when written).
struct SvgAttr {
  std::string_view name;
  std::string value;
};

class SvgWriter {
 public:
  // <name attrs...> ; Close() writes </name>.
  void Open(std::string_view name, std::initializer_list<SvgAttr> attrs = {});
  void Close(std::string_view name);
  // <name attrs.../>
  void Empty(std::string_view name, std::initializer_list<SvgAttr> attrs = {});
  // <name attrs...>text</name>, text escaped.
  void Text(std::string_view name, std::string_view text, std::initializer_list<SvgAttr> attrs = {});
  // Markup written as is (a nested chart or table already escaped).
  void Raw(std::string_view markup) { out_ += markup; }
  const std::string& str() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void Attrs(std::initializer_list<SvgAttr> attrs);
  std::string out_;
};

}  // namespace paratune
