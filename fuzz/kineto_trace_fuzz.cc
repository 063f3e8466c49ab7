// libFuzzer target: ParseKinetoTrace must return a RankTrace or throw InputError on any bytes, and
// AnalyzeTraces must then survive whatever the reader let through (odd times, duplicate
// correlations, empty names, ...). Anything else (another exception, a crash, a sanitizer report,
// a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "trace/kineto_reader.h"
#include "trace/trace_analysis.h"
#include "trace/trace_event.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return 0;  // keep each run short; the reader streams larger files the same way
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<paratune::RankTrace> ranks;
  try {
    ranks.push_back(paratune::ParseKinetoTrace(text, "fuzz.json"));
  } catch (const paratune::InputError&) {
    return 0;
  }
  paratune::RankTrace& t = ranks[0];
  // What the reader promises: interned names and collective args in range, no negative durations.
  for (const paratune::TraceEvent& e : t.events) {
    if (e.name >= t.names.size() || e.dur_ns < 0) std::abort();
    if (e.collective < -1 || (e.collective >= 0 && static_cast<size_t>(e.collective) >= t.collectives.size()))
      std::abort();
  }
  if (t.warnings.truncated > 1 || t.bytes_read < 0 || t.bytes_read > static_cast<int64_t>(size)) std::abort();
  t.rank = 0;
  const paratune::TraceAnalysis a = paratune::AnalyzeTraces(ranks);
  if (a.ranks.size() != 1 || a.ranks[0].gpu_events > a.ranks[0].events) std::abort();
  for (uint32_t i : a.ranks[0].analysed_events)
    if (i >= t.events.size()) std::abort();
  return 0;
}
