// Helpers of the chart tests (included only by *_test.cc): the start tags of a rendered chart
// with their attributes, and a well-formedness check of the markup the SvgWriter wrote.
#pragma once

#include <map>
#include <regex>
#include <string>
#include <vector>

namespace paratune::chart_test {

using Attrs = std::map<std::string, std::string>;

// Every <tag ...> start tag whose class attribute has the token `cls` ("" = any), in order.
inline std::vector<Attrs> Elements(const std::string& html, const std::string& tag, const std::string& cls = "") {
  std::vector<Attrs> out;
  const std::regex attr_re(R"re(([a-zA-Z_:][-a-zA-Z0-9_:.]*)="([^"]*)")re");
  const std::string open = "<" + tag;
  for (size_t p = html.find(open); p != std::string::npos; p = html.find(open, p + 1)) {
    const char next = html[p + open.size()];
    if (next != ' ' && next != '>' && next != '/') continue;
    const size_t end = html.find('>', p);
    const std::string body = html.substr(p + open.size(), end - p - open.size());
    Attrs a;
    for (auto it = std::sregex_iterator(body.begin(), body.end(), attr_re); it != std::sregex_iterator(); ++it) {
      a[(*it)[1]] = (*it)[2];
    }
    if (!cls.empty()) {
      const std::string c = " " + a["class"] + " ";
      if (c.find(" " + cls + " ") == std::string::npos) continue;
    }
    out.push_back(a);
  }
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
      if (stack.empty() || stack.back() != name) return "</" + name + "> closes " + (stack.empty() ? "nothing" : stack.back());
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
