#include "analysis/critical_path_overlay.h"

#include <algorithm>

namespace paratune {

bool IsOverlaidEdge(CriticalEdgeType type) {
  return type == CriticalEdgeType::kDependency || type == CriticalEdgeType::kLaunchDelay ||
         type == CriticalEdgeType::kSync;
}

namespace {

// overlay_critical_path_analysis's get_flow_event: ts for a start node; for an end node ts + dur,
// less min(1 µs, dur) on a GPU event (HTA tests args.device >= 0, which Kineto writes on GPU
// events only).
int64_t FlowTime(const TraceEvent& e, bool at_end) {
  if (!at_end) return e.ts_ns;
  const int64_t end = e.ts_ns + e.dur_ns;
  return e.stream >= 0 ? end - std::min<int64_t>(1000, e.dur_ns) : end;
}

}  // namespace

std::vector<CriticalFlow> CriticalPathFlows(const RankTrace& t, const TraceCriticalPath& path) {
  std::vector<CriticalFlow> out;
  for (const TraceCriticalPath::Step& s : path.steps) {
    if (!IsOverlaidEdge(s.type) || s.from >= t.events.size() || s.to >= t.events.size()) continue;
    out.push_back(
        {s.type, s.from, s.to, FlowTime(t.events[s.from], s.from_end), FlowTime(t.events[s.to], s.to_end), s.weight_s});
  }
  return out;
}

}  // namespace paratune
