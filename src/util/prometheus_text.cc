#include "util/prometheus_text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "util/error.h"
#include "util/text.h"

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

namespace paratune {
namespace {

// Reads one sample line; `fail(what)` throws.
class SampleLine {
 public:
  SampleLine(std::string_view s, const std::function<void(const std::string&)>& fail) : s_(s), fail_(fail) {}

  ParsedSample Read() {
    ParsedSample p;
    p.name = Name(false);
    if (Peek() == '{') Labels(p.labels);
    Blanks(true);
    p.value = Number(Token());
    Blanks(false);
    if (i_ < s_.size()) {
      const std::string_view t = Token();
      int64_t ms = 0;
      if (ParseInteger(t, &ms) != NumberParse::kOk)
        fail_(fmt::format("timestamp '{}' is not an integer (ms since the epoch)", Shown(t)));
      p.timestamp_ms = ms;
      Blanks(false);
      if (i_ < s_.size()) fail_("text after the timestamp");
    }
    return p;
  }

 private:
  char Peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void Blanks(bool required) {
    const size_t from = i_;
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
    if (required && i_ == from) fail_("expected a blank before the value");
  }
  std::string_view Token() {
    const size_t from = i_;
    while (i_ < s_.size() && s_[i_] != ' ' && s_[i_] != '\t') ++i_;
    return s_.substr(from, i_ - from);
  }
  std::string Name(bool label) {
    const size_t from = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == ':')) ++i_;
    const std::string n(s_.substr(from, i_ - from));
    // A label name read back may be reserved (`__`-prefixed); it may not hold a colon.
    const bool ok = label ? IsPrometheusName(n) && n.find(':') == std::string::npos : IsPrometheusName(n);
    if (!ok)
      fail_(fmt::format("'{}' is not a {} name", Shown(s_.substr(from, std::max<size_t>(i_ - from, 1))),
                        label ? "label" : "metric"));
    return n;
  }
  void Labels(std::vector<std::pair<std::string, std::string>>& out) {
    ++i_;  // '{'
    while (Peek() != '}') {
      std::string name = Name(true);
      if (Peek() != '=' || (++i_, Peek() != '"')) fail_(fmt::format("label {} without =\"value\"", name));
      ++i_;
      std::string value;
      for (;; ++i_) {
        if (i_ >= s_.size()) fail_(fmt::format("label {}: value without its closing quote", name));
        const char c = s_[i_];
        if (c == '"') break;
        if (c != '\\') {
          value += c;
          continue;
        }
        const char e = ++i_ < s_.size() ? s_[i_] : '\0';
        if (e != '\\' && e != '"' && e != 'n')
          fail_(fmt::format("label {}: escape '\\{}' is not \\\\, \\\" or \\n", name, e));
        value += e == 'n' ? '\n' : e;
      }
      ++i_;  // closing quote
      out.emplace_back(std::move(name), std::move(value));
      if (Peek() == ',')
        ++i_;
      else if (Peek() != '}')
        fail_("labels not separated by ',' or closed by '}'");
    }
    ++i_;  // '}'
  }
  double Number(std::string_view t) {
    if (t == "NaN") return std::nan("");
    if (t == "+Inf" || t == "Inf") return INFINITY;
    if (t == "-Inf") return -INFINITY;
    double v = 0;
    // Go's strconv.ParseFloat, which Prometheus reads values with, takes a leading '+'.
    if (ParseNumber(!t.empty() && t[0] == '+' ? t.substr(1) : t, &v) != NumberParse::kOk)
      fail_(fmt::format("value '{}' is not a number", Shown(t)));
    return v;
  }

  std::string_view s_;
  size_t i_ = 0;
  const std::function<void(const std::string&)>& fail_;
};

}  // namespace

std::vector<ParsedSample> ParsePrometheusText(std::string_view text, const std::string& where) {
  std::vector<ParsedSample> out;
  int n = 0;
  for (size_t pos = 0; pos < text.size();) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++n;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    const std::function<void(const std::string&)> fail = [&](const std::string& what) {
      throw InputError(fmt::format("{}:{}: {}", where, n, what));
    };
    if (line.find('\0') != std::string_view::npos) fail("NUL byte: not a Prometheus text page");
    ParsedSample s = SampleLine(line.substr(first), fail).Read();
    s.line = n;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace paratune
