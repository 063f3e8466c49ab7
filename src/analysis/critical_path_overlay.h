// The critical path drawn over a trace, as Holistic Trace Analysis's overlay draws it
// (hta/analyzers/critical_path_analysis.py overlay_critical_path_analysis at f4d0062, with its
// defaults only_show_critical_events and DEFAULT_EDGE_TYPES_IN_VIZ): an arrow for each edge of the
// path that is a dependency, a kernel launch delay or a synchronisation (operator spans and
// kernel-kernel gaps are the slices themselves), from the edge's first event to its second. An
// arrow leaves or reaches an event at its start for a start node and at its end for an end node;
// on a GPU event HTA pulls the end inside the slice by min(1 µs, its duration), so that the
// arrow binds to it. `paratune analyze --critical-path ... --trace-out` writes them
// (reduced_trace.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/critical_path.h"
#include "trace/trace_event.h"

namespace paratune {

struct CriticalFlow {
  CriticalEdgeType type = CriticalEdgeType::kDependency;
  uint32_t from = 0, to = 0;             // indices into RankTrace::events
  int64_t from_ts_ns = 0, to_ts_ns = 0;  // in the trace's time base
  double weight_s = 0;
};

// HTA's DEFAULT_EDGE_TYPES_IN_VIZ.
bool IsOverlaidEdge(CriticalEdgeType type);

// The arrows of `path` (its steps, kept with CriticalPathOptions::keep_path), in path order.
std::vector<CriticalFlow> CriticalPathFlows(const RankTrace& t, const TraceCriticalPath& path);

}  // namespace paratune
