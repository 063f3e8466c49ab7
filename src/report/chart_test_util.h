// Helpers of the chart tests (included only by *_test.cc): the start tags of a rendered chart
// with their attributes, and a well-formedness check of the markup the SvgWriter wrote.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "report/browser_test_util.h"

namespace paratune::chart_test {

using Attrs = std::map<std::string, std::string>;

// Every <tag ...> start tag whose class attribute has the token `cls` ("" = any), in order, with
// its attributes (names lower case, entities decoded): browser::FindElements, the one reader of
// start tags the report tests share (a std::regex per attribute overflowed the stack under ASan
// on long path data).
inline std::vector<Attrs> Elements(const std::string& html, const std::string& tag, const std::string& cls = "") {
  std::vector<Attrs> out;
  for (const auto& e : browser::FindElements(html, tag, cls)) out.push_back(e.attrs);
  return out;
}

inline size_t Count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

// "" when every element is closed in order (<x/> counts as closed; <!doctype> and the raw text
// of <style> are skipped), else what is wrong.
inline std::string WellFormed(const std::string& html) {
  std::vector<std::string> stack;
  size_t p = 0;
  while ((p = html.find('<', p)) != std::string::npos) {
    if (html.compare(p, 2, "<!") == 0) {
      p = html.find('>', p);
      continue;
    }
    const size_t end = html.find('>', p);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(p);
    std::string tag = html.substr(p + 1, end - p - 1);
    if (tag.empty()) return "empty tag at " + std::to_string(p);
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name)
        return "</" + name + "> closes " + (stack.empty() ? "nothing" : stack.back());
      stack.pop_back();
    } else if (tag.back() != '/') {
      const std::string name = tag.substr(0, tag.find(' '));
      stack.push_back(name);
      if (name == "style") {  // raw text up to </style>
        p = html.find("</style>", end);
        if (p == std::string::npos) return "unterminated <style>";
        continue;
      }
    }
    p = end + 1;
  }
  return stack.empty() ? "" : "<" + stack.back() + "> not closed";
}

}  // namespace paratune::chart_test
