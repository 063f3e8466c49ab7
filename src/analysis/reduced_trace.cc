#include "analysis/reduced_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "util/file.h"

namespace paratune {
namespace {

// JSON string literal of `s` (escaped, invalid UTF-8 replaced).
std::string Quote(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string ReducedTraceJson(const std::vector<RankTrace>& ranks, const TraceAnalysis& a) {
  // Origin: the earliest analysed GPU event of any rank, in absolute ns.
  int64_t origin = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < ranks.size() && i < a.ranks.size(); ++i)
    for (uint32_t k : a.ranks[i].analysed_events) origin = std::min(origin, ranks[i].base_time_ns + ranks[i].events[k].ts_ns);
  if (origin == std::numeric_limits<int64_t>::max()) origin = 0;
  std::string out = "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"producer\": \"paratune analyze\"}, \"traceEvents\": [\n";
  bool first = true;
  auto emit = [&](const std::string& ev) {
    if (!first) out += ",\n";
    first = false;
    out += ev;
  };
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
    emit(fmt::format(R"({{"ph": "M", "name": "process_name", "pid": {}, "args": {{"name": {}}}}})", pid,
                     Quote("rank " + std::to_string(t.rank) + (t.device_name.empty() ? "" : " (" + t.device_name + ")"))));
    emit(fmt::format(R"({{"ph": "M", "name": "process_sort_index", "pid": {}, "args": {{"sort_index": {}}}}})", pid, t.rank));
    emit(fmt::format(R"({{"ph": "M", "name": "thread_name", "pid": {}, "tid": {}, "args": {{"name": "iterations"}}}})", pid,
                     kIterationsTid));
    std::set<int64_t> streams;
    std::vector<std::string> short_names(t.names.size()), types(t.names.size()), cats(t.names.size());
    std::vector<uint8_t> named(t.names.size());
    for (uint32_t k : r.analysed_events) {
      const TraceEvent& e = t.events[k];
      if (!named[e.name]) {
        named[e.name] = 1;
        short_names[e.name] = Quote(ShortKernelName(t.names[e.name]));
        types[e.name] = HtaKernelTypeName(HtaKernelTypeOf(t.names[e.name]));
        cats[e.name] = KernelCategoryName(KernelCategoryOf(t.names[e.name], e.kind));
      }
      if (streams.insert(e.stream).second)
        emit(fmt::format(R"({{"ph": "M", "name": "thread_name", "pid": {}, "tid": {}, "args": {{"name": "stream {}"}}}})", pid,
                         e.stream, e.stream));
      emit(fmt::format(R"({{"ph": "X", "pid": {}, "tid": {}, "ts": {:.3f}, "dur": {:.3f}, "name": {}, "cat": "{}", "args": {{"type": "{}", "correlation": {}}}}})",
                       pid, e.stream, us(e.ts_ns), static_cast<double>(e.dur_ns) / 1000.0, short_names[e.name], cats[e.name],
                       types[e.name], e.correlation));
    }
    for (const IterationStats& it : r.iterations) {
      if (it.gpu_start_ns < 0) continue;
      const double ts = us(it.gpu_start_ns);
      emit(fmt::format(R"({{"ph": "X", "pid": {}, "tid": {}, "ts": {:.3f}, "dur": {:.3f}, "name": "ProfilerStep#{}", "cat": "iteration", "args": {{"cpu_step_ms": {:.3f}, "compute_pct": {:.2f}, "non_compute_pct": {:.2f}, "idle_pct": {:.2f}, "dataloader_ms": {:.3f}}}}})",
                       pid, kIterationsTid, ts, it.gpu.window_s * 1e6, it.step, it.cpu_step_s * 1e3, it.gpu.compute_pct(),
                       it.gpu.non_compute_pct(), it.gpu.idle_pct(), it.dataloader_s * 1e3));
      emit(fmt::format(R"({{"ph": "C", "pid": {}, "ts": {:.3f}, "name": "GPU time %", "args": {{"compute": {:.2f}, "non-compute": {:.2f}, "idle": {:.2f}}}}})",
                       pid, ts, it.gpu.compute_pct(), it.gpu.non_compute_pct(), it.gpu.idle_pct()));
      emit(fmt::format(R"({{"ph": "C", "pid": {}, "ts": {:.3f}, "name": "step time ms", "args": {{"step": {:.3f}}}}})", pid, ts,
                       it.cpu_step_s * 1e3));
    }
  }
  out += "\n]}\n";
  return out;
}

void WriteReducedTrace(const std::vector<RankTrace>& ranks, const TraceAnalysis& a, const std::string& path) {
  WriteFileAtomic(path, ReducedTraceJson(ranks, a));
}

}  // namespace paratune
