// SvgWriter and the number formats of the report's markup (svg.h).
#include "report/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace paratune {

std::string XmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string SvgNumber(double v, int decimals) {
  if (!std::isfinite(v)) return "0";
  decimals = std::clamp(decimals, 0, 40);
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0" || s.empty()) s = "0";
  return s;
}

std::string SvgValue(double v, int significant) {
  if (!std::isfinite(v) || v == 0) return "0";
  const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  return SvgNumber(v, std::max(0, std::max(1, significant) - 1 - exponent));
}

void SvgWriter::Attrs(std::initializer_list<SvgAttr> attrs) {
  for (const SvgAttr& a : attrs) {
    out_ += ' ';
    out_ += a.name;
    out_ += "=\"";
    out_ += XmlEscape(a.value);
    out_ += '"';
  }
}

void SvgWriter::Open(std::string_view name, std::initializer_list<SvgAttr> attrs) {
  out_ += '<';
  out_ += name;
  Attrs(attrs);
  out_ += '>';
}

void SvgWriter::Close(std::string_view name) {
  out_ += "</";
  out_ += name;
  out_ += '>';
}

void SvgWriter::Empty(std::string_view name, std::initializer_list<SvgAttr> attrs) {
  out_ += '<';
  out_ += name;
  Attrs(attrs);
  out_ += "/>";
}

void SvgWriter::Text(std::string_view name, std::string_view text, std::initializer_list<SvgAttr> attrs) {
  Open(name, attrs);
  out_ += XmlEscape(text);
  Close(name);
}

}  // namespace paratune
