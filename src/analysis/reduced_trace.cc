#include "analysis/reduced_trace.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "analysis/critical_path_overlay.h"
#include "timeline/chrome_trace.h"
#include "util/file.h"

namespace paratune {

namespace {

// Times in µs from the trace set's origin. Times are within ±kMaxTraceTimeNs, so base + ts fits;
// the difference to another rank's origin may not, and then goes through a double.
struct Clock {
  int64_t base = 0, origin = 0;
  double Us(int64_t ts_ns) const {
    int64_t d = 0;
    if (__builtin_sub_overflow(base + ts_ns, origin, &d))
      return (static_cast<double>(base + ts_ns) - static_cast<double>(origin)) / 1000.0;
    return static_cast<double>(d) / 1000.0;
  }
};

constexpr int kIterationsTid = -1;

// The critical path over one rank (critical_path_overlay.h): its events carry args.critical = 1
// (GPU events on their stream, CPU-side events on one thread per CPU thread, "critical path: CPU
// thread N", tids -2, -3, ...), and HTA's arrows join them. `written[k]`: event k is already drawn.
void CriticalPathOverlay(ChromeTraceWriter& w, const RankTrace& t, const TraceCriticalPath& path, const Clock& c,
                         std::vector<uint8_t>& written, std::set<int64_t>& streams, int64_t& flow_id) {
  const int pid = t.rank;
  std::map<int32_t, int64_t> cpu_tid;  // CPU thread key -> the overlay's tid
  auto tid_of = [&](const TraceEvent& e) {
    if (e.stream >= 0) {
      if (streams.insert(e.stream).second) w.ThreadName(pid, e.stream, "stream " + std::to_string(e.stream));
      return e.stream;
    }
    const auto [it, added] = cpu_tid.emplace(e.tid, -2 - static_cast<int64_t>(cpu_tid.size()));
    if (added) w.ThreadName(pid, it->second, "critical path: CPU thread " + std::to_string(e.tid));
    return it->second;
  };
  for (uint32_t k : path.events) {
    if (k >= t.events.size() || written[k]) continue;
    const TraceEvent& e = t.events[k];
    const int64_t tid = tid_of(e);
    w.Complete(pid, tid, c.Us(e.ts_ns), static_cast<double>(e.dur_ns) / 1000.0, t.Name(e), kEventKindNames.Name(e.kind),
               {TraceArg::Int("critical", 1), TraceArg::Int("correlation", e.correlation)});
  }
  for (const CriticalFlow& f : CriticalPathFlows(t, path)) {
    const std::string_view type = kCriticalEdgeTypeNames.Name(f.type);
    const int64_t weight_us = static_cast<int64_t>(f.weight_s * 1e6 + (f.weight_s < 0 ? -0.5 : 0.5));
    w.Flow(pid, tid_of(t.events[f.from]), c.Us(f.from_ts_ns), flow_id, true, "critical_path", "critical_path",
           {TraceArg::Int("weight", weight_us), TraceArg::Str("type", type)});
    w.Flow(pid, tid_of(t.events[f.to]), c.Us(f.to_ts_ns), flow_id, false, "critical_path", "critical_path",
           {TraceArg::Int("weight", weight_us), TraceArg::Str("type", type)});
    ++flow_id;
  }
}

// One rank's analysed GPU events, one thread per stream; those on the critical path (when it
// was kept) carry args.critical = 1.
void GpuEvents(ChromeTraceWriter& w, const RankTrace& t, const RankAnalysis& r, const Clock& c,
               const std::vector<uint8_t>& on_path, std::vector<uint8_t>& written, std::set<int64_t>& streams) {
  const int pid = t.rank;
  std::vector<std::string> short_names(t.names.size());
  std::vector<const char*> types(t.names.size()), cats(t.names.size());
  std::vector<uint8_t> named(t.names.size());
  for (uint32_t k : r.analysed_events) {
    const TraceEvent& e = t.events[k];
    if (!named[e.name]) {
      named[e.name] = 1;
      short_names[e.name] = ShortKernelName(t.names[e.name]);
      types[e.name] = HtaKernelTypeName(HtaKernelTypeOf(t.names[e.name]));
      cats[e.name] = KernelCategoryName(KernelCategoryOf(t.names[e.name], e.kind));
    }
    if (streams.insert(e.stream).second) w.ThreadName(pid, e.stream, "stream " + std::to_string(e.stream));
    const double ts = c.Us(e.ts_ns), dur = static_cast<double>(e.dur_ns) / 1000.0;
    if (k < on_path.size() && on_path[k]) {
      written[k] = 1;
      w.Complete(pid, e.stream, ts, dur, short_names[e.name], cats[e.name],
                 {TraceArg::Str("type", types[e.name]), TraceArg::Int("correlation", e.correlation),
                  TraceArg::Int("critical", 1)});
    } else {
      w.Complete(pid, e.stream, ts, dur, short_names[e.name], cats[e.name],
                 {TraceArg::Str("type", types[e.name]), TraceArg::Int("correlation", e.correlation)});
    }
  }
}

void Iterations(ChromeTraceWriter& w, const RankTrace& t, const RankAnalysis& r, const Clock& c) {
  const int pid = t.rank;
  for (const IterationStats& it : r.iterations) {
    if (it.gpu_start_ns < 0) continue;
    const double ts = c.Us(it.gpu_start_ns);
    w.Complete(
        pid, kIterationsTid, ts, it.gpu.window_s * 1e6, "ProfilerStep#" + std::to_string(it.step), "iteration",
        {TraceArg::Num("cpu_step_ms", it.cpu_step_s * 1e3, 3), TraceArg::Num("compute_pct", it.gpu.compute_pct(), 2),
         TraceArg::Num("non_compute_pct", it.gpu.non_compute_pct(), 2), TraceArg::Num("idle_pct", it.gpu.idle_pct(), 2),
         TraceArg::Num("dataloader_ms", it.dataloader_s * 1e3, 3)});
    w.Counter(pid, ts, "GPU time %",
              {TraceArg::Num("compute", it.gpu.compute_pct(), 2),
               TraceArg::Num("non-compute", it.gpu.non_compute_pct(), 2), TraceArg::Num("idle", it.gpu.idle_pct(), 2)});
    w.Counter(pid, ts, "step time ms", {TraceArg::Num("step", it.cpu_step_s * 1e3, 3)});
  }
}

}  // namespace

std::string ReducedTraceJson(const std::vector<RankTrace>& ranks, const TraceAnalysis& a) {
  // Origin: the earliest analysed GPU event of any rank, in absolute ns.
  int64_t origin = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < ranks.size() && i < a.ranks.size(); ++i)
    for (uint32_t k : a.ranks[i].analysed_events)
      origin = std::min(origin, ranks[i].base_time_ns + ranks[i].events[k].ts_ns);
  if (origin == std::numeric_limits<int64_t>::max()) origin = 0;
  // Times in µs with three decimals: the traces' ns resolution.
  ChromeTraceWriter w(/*time_decimals=*/3, {{"producer", "paratune analyze"}});
  int64_t flow_id = 0;
  for (size_t i = 0; i < ranks.size() && i < a.ranks.size(); ++i) {
    const RankTrace& t = ranks[i];
    const RankAnalysis& r = a.ranks[i];
    const Clock c{t.base_time_ns, origin};
    const int pid = t.rank;
    w.ProcessName(pid, "rank " + std::to_string(t.rank) + (t.device_name.empty() ? "" : " (" + t.device_name + ")"));
    w.ProcessSortIndex(pid, t.rank);
    w.ThreadName(pid, kIterationsTid, "iterations");
    const TraceCriticalPath* path = r.critical_path && !r.critical_path->steps.empty() ? &*r.critical_path : nullptr;
    std::vector<uint8_t> on_path(path ? t.events.size() : 0), written(on_path.size());
    if (path)
      for (uint32_t k : path->events)
        if (k < on_path.size()) on_path[k] = 1;
    std::set<int64_t> streams;
    GpuEvents(w, t, r, c, on_path, written, streams);
    if (path) CriticalPathOverlay(w, t, *path, c, written, streams, flow_id);
    Iterations(w, t, r, c);
  }
  return w.Finish();
}

void WriteReducedTrace(const std::vector<RankTrace>& ranks, const TraceAnalysis& a, const std::string& path) {
  WriteFileAtomic(path, ReducedTraceJson(ranks, a));
}

}  // namespace paratune
