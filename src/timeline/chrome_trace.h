// Chrome-trace JSON (chrome://tracing, ui.perfetto.dev), written once for paratune: a streaming
// text writer (ChromeTraceWriter) for process and thread names, complete ("X"), flow ("s"/"f")
// and counter ("C") events with their args, with JSON-escaped strings, used by the simulator's timeline
// (ChromeTraceText / WriteChromeTrace below) and by `paratune analyze --trace-out`
// (analysis/reduced_trace.cc).
// Format: "Trace Event Format", Google, docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "timeline/timeline.h"

namespace paratune {

// `s` as a JSON string literal: quotes, backslashes and control characters escaped as
// nlohmann::json writes them, invalid UTF-8 replaced by U+FFFD.
std::string JsonQuote(std::string_view s);

// One member of an event's "args": a string, an integer or a number (NaN and infinities are
// written as null). A number's `decimals` >= 0 prints it fixed with that many decimals;
// -1 prints the shortest text that reads back as the same double.
struct TraceArg {
  enum class Type : uint8_t { kString, kInt, kNumber };
  std::string_view key;
  Type type = Type::kString;
  std::string_view str;
  int64_t integer = 0;
  double number = 0;
  int decimals = -1;

  static TraceArg Str(std::string_view key, std::string_view value) { return {key, Type::kString, value, 0, 0, -1}; }
  static TraceArg Int(std::string_view key, int64_t value) { return {key, Type::kInt, {}, value, 0, -1}; }
  static TraceArg Num(std::string_view key, double value, int decimals = -1) {
    return {key, Type::kNumber, {}, 0, value, decimals};
  }
};

// Writes {"displayTimeUnit": "ms", ["otherData": {...},] "traceEvents": [ ... ]} event by event
// into one string. Times are µs, written with `time_decimals` (-1: shortest round-trip text).
class ChromeTraceWriter {
 public:
  explicit ChromeTraceWriter(int time_decimals = -1,
                             const std::vector<std::pair<std::string, std::string>>& other_data = {});

  void ProcessName(int64_t pid, std::string_view name);
  void ProcessSortIndex(int64_t pid, int64_t index);
  void ThreadName(int64_t pid, int64_t tid, std::string_view name);
  // A complete event. An empty `cat` leaves the category out.
  void Complete(int64_t pid, int64_t tid, double ts_us, double dur_us, std::string_view name, std::string_view cat,
                std::initializer_list<TraceArg> args);
  // One end of a flow arrow (Trace Event Format "Flow Events"): "s" where it starts, "f" with
  // "bp": "e" (bound to the slice enclosing ts) where it ends; both ends share `id`.
  void Flow(int64_t pid, int64_t tid, double ts_us, int64_t id, bool start, std::string_view name, std::string_view cat,
            std::initializer_list<TraceArg> args);
  // A counter track `name` of process `pid`: one value per arg.
  void Counter(int64_t pid, double ts_us, std::string_view name, std::initializer_list<TraceArg> args);

  size_t events() const { return events_; }
  // The document, closed; the writer is empty afterwards.
  std::string Finish();

 private:
  void Begin();
  void Time(double us);
  void Args(std::initializer_list<TraceArg> args);
  std::string out_;
  int time_decimals_;
  size_t events_ = 0;
};

// Chrome-trace JSON of a Timeline: one complete ("X") event per timeline event (named after the
// event, or its phase and micro-batch: "F3"), ts/dur in microseconds, pid = rank named "stage N",
// tid = stream named after Timeline::stream_names, args carrying phase, micro-batch and virtual
// stage.
std::string ChromeTraceText(const Timeline& t);

// ChromeTraceText parsed, for callers that inspect it.
nlohmann::json ChromeTraceJson(const Timeline& t);

// Writes ChromeTraceText(t) to `path` atomically; throws InputError if it cannot.
void WriteChromeTrace(const Timeline& t, const std::string& path);

}  // namespace paratune
