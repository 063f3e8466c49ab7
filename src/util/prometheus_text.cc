#include "util/prometheus_text.h"

#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

namespace paratune {
namespace {

std::string Escaped(const std::string& s, bool quote) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '"' && quote)
      out += "\\\"";
    else
      out += c;
  }
  return out;
}

std::string Value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

}  // namespace

bool IsPrometheusName(const std::string& name, bool label) {
  if (name.empty() || (label && name.rfind("__", 0) == 0)) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!label && c == ':');
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string WritePrometheusText(const std::vector<MetricFamily>& families) {
  std::string out;
  std::set<std::string> seen;
  for (const MetricFamily& f : families) {
    if (!IsPrometheusName(f.name)) throw std::logic_error("not a Prometheus metric name: " + f.name);
    if (!seen.insert(f.name).second) throw std::logic_error("metric family written twice: " + f.name);
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", f.name, Escaped(f.help, false), f.name, f.type);
    for (const MetricSample& s : f.samples) {
      out += f.name;
      if (!s.labels.empty()) {
        out += '{';
        for (size_t i = 0; i < s.labels.size(); ++i) {
          if (!IsPrometheusName(s.labels[i].first, true))
            throw std::logic_error("not a Prometheus label name: " + s.labels[i].first);
          out += fmt::format("{}{}=\"{}\"", i ? "," : "", s.labels[i].first, Escaped(s.labels[i].second, true));
        }
        out += '}';
      }
      out += ' ' + Value(s.value) + '\n';
    }
  }
  return out;
}

}  // namespace paratune
