#include "analysis/reduced_trace.h"

#include <algorithm>
#include <limits>
#include <set>

#include "timeline/chrome_trace.h"
#include "util/file.h"

namespace paratune {

std::string ReducedTraceJson(const std::vector<RankTrace>& ranks, const TraceAnalysis& a) {
  // Origin: the earliest analysed GPU event of any rank, in absolute ns.
  int64_t origin = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < ranks.size() && i < a.ranks.size(); ++i)
    for (uint32_t k : a.ranks[i].analysed_events)
      origin = std::min(origin, ranks[i].base_time_ns + ranks[i].events[k].ts_ns);
  if (origin == std::numeric_limits<int64_t>::max()) origin = 0;
  // Times in µs with three decimals: the traces' ns resolution.
  ChromeTraceWriter w(/*time_decimals=*/3, {{"producer", "paratune analyze"}});
  constexpr int kIterationsTid = -1;
  for (size_t i = 0; i < ranks.size() && i < a.ranks.size(); ++i) {
    const RankTrace& t = ranks[i];
    const RankAnalysis& r = a.ranks[i];
    const int pid = t.rank;
    // Times are within ±kMaxTraceTimeNs, so base + ts fits; the difference to another rank's
    // origin may not, and then goes through a double.
    auto us = [&](int64_t ts_ns) {
      int64_t d = 0;
      if (__builtin_sub_overflow(t.base_time_ns + ts_ns, origin, &d))
        return (static_cast<double>(t.base_time_ns + ts_ns) - static_cast<double>(origin)) / 1000.0;
      return static_cast<double>(d) / 1000.0;
    };
    w.ProcessName(pid, "rank " + std::to_string(t.rank) + (t.device_name.empty() ? "" : " (" + t.device_name + ")"));
    w.ProcessSortIndex(pid, t.rank);
    w.ThreadName(pid, kIterationsTid, "iterations");
    std::set<int64_t> streams;
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
      w.Complete(pid, e.stream, us(e.ts_ns), static_cast<double>(e.dur_ns) / 1000.0, short_names[e.name], cats[e.name],
                 {TraceArg::Str("type", types[e.name]), TraceArg::Int("correlation", e.correlation)});
    }
    for (const IterationStats& it : r.iterations) {
      if (it.gpu_start_ns < 0) continue;
      const double ts = us(it.gpu_start_ns);
      w.Complete(
          pid, kIterationsTid, ts, it.gpu.window_s * 1e6, "ProfilerStep#" + std::to_string(it.step), "iteration",
          {TraceArg::Num("cpu_step_ms", it.cpu_step_s * 1e3, 3), TraceArg::Num("compute_pct", it.gpu.compute_pct(), 2),
           TraceArg::Num("non_compute_pct", it.gpu.non_compute_pct(), 2),
           TraceArg::Num("idle_pct", it.gpu.idle_pct(), 2), TraceArg::Num("dataloader_ms", it.dataloader_s * 1e3, 3)});
      w.Counter(
          pid, ts, "GPU time %",
          {TraceArg::Num("compute", it.gpu.compute_pct(), 2), TraceArg::Num("non-compute", it.gpu.non_compute_pct(), 2),
           TraceArg::Num("idle", it.gpu.idle_pct(), 2)});
      w.Counter(pid, ts, "step time ms", {TraceArg::Num("step", it.cpu_step_s * 1e3, 3)});
    }
  }
  return w.Finish();
}

void WriteReducedTrace(const std::vector<RankTrace>& ranks, const TraceAnalysis& a, const std::string& path) {
  WriteFileAtomic(path, ReducedTraceJson(ranks, a));
}

}  // namespace paratune
