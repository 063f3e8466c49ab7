// Hand-built trace events for the analysis tests (one definition: the test files share a unity
// build, where helpers of the same name in several files collide). Times in µs.
#pragma once

#include <cstdint>

#include "trace/trace_event.h"

namespace paratune::test_events {

inline TraceEvent At(uint32_t name, EventKind kind, int64_t ts_us, int64_t dur_us, int64_t stream = -1,
                     int64_t correlation = -1) {
  TraceEvent e;
  e.name = name;
  e.kind = kind;
  e.ts_ns = ts_us * 1000;
  e.dur_ns = dur_us * 1000;
  e.stream = stream;
  e.correlation = correlation;
  return e;
}

}  // namespace paratune::test_events
