#include "timeline/chrome_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>

#include "util/file.h"

namespace paratune {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 (RFC 3629: no overlongs, no surrogates, at
// most U+10FFFF).
size_t Utf8Length(std::string_view s, size_t i) {
  auto u = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned c = u(i);
  size_t len = 0;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF)
    len = 2;
  else if (c >= 0xE0 && c <= 0xEF)
    len = 3;
  else if (c >= 0xF0 && c <= 0xF4)
    len = 4;
  else
    return 0;
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k)
    if ((u(i + k) & 0xC0) != 0x80) return 0;
  const unsigned c1 = u(i + 1);
  if (len == 3 && ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0))) return 0;
  if (len == 4 && ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 >= 0x90))) return 0;
  return len;
}

void AppendNumber(std::string& out, double x, int decimals) {
  if (!std::isfinite(x)) {
    out += "null";
  } else if (decimals >= 0) {
    fmt::format_to(std::back_inserter(out), "{:.{}f}", x, decimals);
  } else {
    fmt::format_to(std::back_inserter(out), "{}", x);
  }
}

}  // namespace

std::string JsonQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t len = Utf8Length(s, i);
      if (len == 0) {
        out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER, as nlohmann's error_handler_t::replace
        ++i;
      } else {
        out.append(s.data() + i, len);
        i += len;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20)
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
        else
          out += static_cast<char>(c);
    }
    ++i;
  }
  out += '"';
  return out;
}

ChromeTraceWriter::ChromeTraceWriter(int time_decimals,
                                     const std::vector<std::pair<std::string, std::string>>& other_data)
    : time_decimals_(time_decimals) {
  out_ = "{\"displayTimeUnit\": \"ms\", ";
  if (!other_data.empty()) {
    out_ += "\"otherData\": {";
    for (size_t i = 0; i < other_data.size(); ++i) {
      if (i) out_ += ", ";
      out_ += JsonQuote(other_data[i].first) + ": " + JsonQuote(other_data[i].second);
    }
    out_ += "}, ";
  }
  out_ += "\"traceEvents\": [\n";
}

void ChromeTraceWriter::Begin() {
  if (events_++) out_ += ",\n";
}

void ChromeTraceWriter::Time(double us) { AppendNumber(out_, us, time_decimals_); }

void ChromeTraceWriter::Args(std::initializer_list<TraceArg> args) {
  out_ += "\"args\": {";
  bool first = true;
  for (const TraceArg& a : args) {
    if (!first) out_ += ", ";
    first = false;
    out_ += JsonQuote(a.key);
    out_ += ": ";
    switch (a.type) {
      case TraceArg::Type::kString:
        out_ += JsonQuote(a.str);
        break;
      case TraceArg::Type::kInt:
        fmt::format_to(std::back_inserter(out_), "{}", a.integer);
        break;
      case TraceArg::Type::kNumber:
        AppendNumber(out_, a.number, a.decimals);
        break;
    }
  }
  out_ += "}";
}

void ChromeTraceWriter::ProcessName(int64_t pid, std::string_view name) {
  Begin();
  fmt::format_to(std::back_inserter(out_), R"({{"ph": "M", "name": "process_name", "pid": {}, )", pid);
  Args({TraceArg::Str("name", name)});
  out_ += "}";
}

void ChromeTraceWriter::ProcessSortIndex(int64_t pid, int64_t index) {
  Begin();
  fmt::format_to(std::back_inserter(out_), R"({{"ph": "M", "name": "process_sort_index", "pid": {}, )", pid);
  Args({TraceArg::Int("sort_index", index)});
  out_ += "}";
}

void ChromeTraceWriter::ThreadName(int64_t pid, int64_t tid, std::string_view name) {
  Begin();
  fmt::format_to(std::back_inserter(out_), R"({{"ph": "M", "name": "thread_name", "pid": {}, "tid": {}, )", pid, tid);
  Args({TraceArg::Str("name", name)});
  out_ += "}";
}

void ChromeTraceWriter::Complete(int64_t pid, int64_t tid, double ts_us, double dur_us, std::string_view name,
                                 std::string_view cat, std::initializer_list<TraceArg> args) {
  Begin();
  fmt::format_to(std::back_inserter(out_), R"({{"ph": "X", "pid": {}, "tid": {}, "ts": )", pid, tid);
  Time(ts_us);
  out_ += ", \"dur\": ";
  Time(dur_us);
  out_ += ", \"name\": ";
  out_ += JsonQuote(name);
  if (!cat.empty()) {
    out_ += ", \"cat\": ";
    out_ += JsonQuote(cat);
  }
  out_ += ", ";
  Args(args);
  out_ += "}";
}

void ChromeTraceWriter::Flow(int64_t pid, int64_t tid, double ts_us, int64_t id, bool start, std::string_view name,
                             std::string_view cat, std::initializer_list<TraceArg> args) {
  Begin();
  fmt::format_to(std::back_inserter(out_), R"({{"ph": "{}", "id": {}, "pid": {}, "tid": {}, "ts": )", start ? "s" : "f",
                 id, pid, tid);
  Time(ts_us);
  out_ += ", \"name\": ";
  out_ += JsonQuote(name);
  out_ += ", \"cat\": ";
  out_ += JsonQuote(cat);
  if (!start) out_ += R"(, "bp": "e")";
  out_ += ", ";
  Args(args);
  out_ += "}";
}

void ChromeTraceWriter::Counter(int64_t pid, double ts_us, std::string_view name,
                                std::initializer_list<TraceArg> args) {
  Begin();
  fmt::format_to(std::back_inserter(out_), R"({{"ph": "C", "pid": {}, "ts": )", pid);
  Time(ts_us);
  out_ += ", \"name\": ";
  out_ += JsonQuote(name);
  out_ += ", ";
  Args(args);
  out_ += "}";
}

std::string ChromeTraceWriter::Finish() {
  out_ += "\n]}\n";
  events_ = 0;
  return std::move(out_);
}

std::string ChromeTraceText(const Timeline& t) {
  ChromeTraceWriter w;
  int ranks = t.ranks;
  for (const TimelineEvent& e : t.events) ranks = std::max(ranks, e.rank + 1);
  for (int r = 0; r < ranks; ++r) {
    w.ProcessName(r, "stage " + std::to_string(r));
    w.ProcessSortIndex(r, r);
    for (size_t s = 0; s < t.stream_names.size(); ++s) w.ThreadName(r, static_cast<int64_t>(s), t.stream_names[s]);
  }
  for (const TimelineEvent& e : t.events) {
    std::string name = e.name;
    if (name.empty()) {
      name = PhaseName(e.phase);
      if (e.micro_batch >= 0) name += std::to_string(e.micro_batch);  // "F3", "send12"
    }
    const TraceArg phase = TraceArg::Str("phase", PhaseName(e.phase));
    const TraceArg mb = TraceArg::Int("micro_batch", e.micro_batch),
                   vs = TraceArg::Int("virtual_stage", e.virtual_stage);
    const double ts = e.start_s * 1e6, dur = e.duration_s * 1e6;
    if (e.micro_batch >= 0 && e.virtual_stage >= 0)
      w.Complete(e.rank, e.stream, ts, dur, name, PhaseName(e.phase), {phase, mb, vs});
    else if (e.micro_batch >= 0)
      w.Complete(e.rank, e.stream, ts, dur, name, PhaseName(e.phase), {phase, mb});
    else if (e.virtual_stage >= 0)
      w.Complete(e.rank, e.stream, ts, dur, name, PhaseName(e.phase), {phase, vs});
    else
      w.Complete(e.rank, e.stream, ts, dur, name, PhaseName(e.phase), {phase});
  }
  return w.Finish();
}

nlohmann::json ChromeTraceJson(const Timeline& t) { return nlohmann::json::parse(ChromeTraceText(t)); }

void WriteChromeTrace(const Timeline& t, const std::string& path) { WriteFileAtomic(path, ChromeTraceText(t)); }

}  // namespace paratune
