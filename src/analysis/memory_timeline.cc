#include "analysis/memory_timeline.h"

#include <algorithm>
#include <map>

#include "analysis/rank_rows.h"
#include "analysis/step_lookup.h"

namespace paratune {
namespace {

constexpr int32_t kCudaDevice = 1;  // c10::DeviceType::CUDA

// The CUDA device with the most memory events, or -2 when there is none.
int BusiestDevice(const std::vector<MemoryEvent>& memory) {
  std::map<int, int64_t> count;
  for (const MemoryEvent& m : memory)
    if (m.device_type == kCudaDevice) ++count[m.device_id];
  int best = -2;
  int64_t most = 0;
  for (const auto& [device, n] : count)
    if (n > most) best = device, most = n;
  return best;
}

// One point of the series: time (ns, file base) and the levels after the event.
struct Level {
  int64_t ts = 0, allocated = 0, reserved = -1;
};

std::vector<Level> SeriesOf(const std::vector<MemoryEvent>& memory, int device, bool* absolute) {
  std::vector<MemoryEvent> own;
  for (const MemoryEvent& m : memory)
    if (m.device_type == kCudaDevice && m.device_id == device) own.push_back(m);
  std::stable_sort(own.begin(), own.end(),
                   [](const MemoryEvent& a, const MemoryEvent& b) { return a.ts_ns < b.ts_ns; });
  *absolute = std::all_of(own.begin(), own.end(), [](const MemoryEvent& m) { return m.total_allocated >= 0; });
  std::vector<Level> out;
  int64_t sum = 0;
  for (const MemoryEvent& m : own) {
    sum += m.bytes;
    out.push_back({m.ts_ns, *absolute ? m.total_allocated : sum, *absolute ? m.total_reserved : -1});
  }
  return out;
}

// The CPU operators and annotations running at each time of `at` (sorted), outermost first
// (by start, then the longer), ProfilerStep spans left out: one pass over the events.
std::vector<std::vector<std::string>> RunningAt(const RankTrace& t, const std::vector<int64_t>& at) {
  std::vector<std::vector<const TraceEvent*>> open(at.size());
  for (const TraceEvent& e : t.events) {
    if (e.kind != EventKind::kCpuOp && e.kind != EventKind::kUserAnnotation) continue;
    if (ProfilerStepNumber(t.Name(e)) >= 0) continue;
    const auto lo = std::lower_bound(at.begin(), at.end(), e.ts_ns);
    for (auto it = lo; it != at.end() && *it < e.ts_ns + e.dur_ns; ++it)
      open[static_cast<size_t>(it - at.begin())].push_back(&e);
  }
  std::vector<std::vector<std::string>> out(at.size());
  for (size_t i = 0; i < at.size(); ++i) {
    std::stable_sort(open[i].begin(), open[i].end(), [](const TraceEvent* a, const TraceEvent* b) {
      return a->ts_ns != b->ts_ns ? a->ts_ns < b->ts_ns : a->dur_ns > b->dur_ns;
    });
    for (const TraceEvent* e : open[i]) out[i].push_back(t.Name(*e));
  }
  return out;
}

StepLookup StepsOf(const RankTrace& t) {
  std::vector<StepSpan> spans;
  for (const TraceEvent& e : t.events)
    if (const int64_t n = ProfilerStepNumber(t.Name(e)); n >= 0 && e.stream < 0)
      spans.push_back({e.ts_ns, e.ts_ns + e.dur_ns, n});
  return StepLookup(spans);
}

// Per equal slice of [first, last], the point with the most allocated; the last point kept.
std::vector<MemorySample> Samples(const std::vector<Level>& series) {
  std::vector<MemorySample> out;
  const int64_t t0 = series.front().ts, span = std::max<int64_t>(series.back().ts - t0, 1);
  int64_t slice = -1;
  for (size_t i = 0; i < series.size(); ++i) {
    const Level& l = series[i];
    const int64_t s = std::min<int64_t>(
        static_cast<int64_t>(static_cast<double>(l.ts - t0) / static_cast<double>(span) * (kMemorySamples - 1)),
        kMemorySamples - 2);
    const MemorySample m{static_cast<double>(l.ts - t0) * kNsToS, l.allocated, l.reserved};
    if (i + 1 == series.size()) {
      out.push_back(m);
    } else if (s != slice) {
      out.push_back(m), slice = s;
    } else if (l.allocated > out.back().allocated_bytes) {
      out.back() = m;
    }
  }
  return out;
}

}  // namespace

std::optional<MemoryTimeline> MemoryTimelineOf(const RankTrace& t) {
  const int device = BusiestDevice(t.memory);
  if (device == -2) return std::nullopt;
  MemoryTimeline out;
  out.device_id = device;
  const std::vector<Level> series = SeriesOf(t.memory, device, &out.absolute);
  out.events = static_cast<int64_t>(series.size());
  const StepLookup steps = StepsOf(t);
  const int64_t t0 = series.front().ts;
  std::map<int64_t, size_t> step_peak;  // step -> index of its highest point
  size_t top = 0;
  for (size_t i = 0; i < series.size(); ++i) {
    if (series[i].allocated > series[top].allocated) top = i;
    out.peak_reserved_bytes = std::max(out.peak_reserved_bytes, series[i].reserved);
    const int64_t step = steps.StepAt(series[i].ts);
    if (step < 0) continue;
    auto [it, fresh] = step_peak.try_emplace(step, i);
    if (!fresh && series[i].allocated > series[it->second].allocated) it->second = i;
  }
  std::vector<std::pair<int64_t, size_t>> peaks = {{-1, top}};
  for (const auto& [step, i] : step_peak) peaks.emplace_back(step, i);
  std::vector<int64_t> at;
  for (const auto& [step, i] : peaks) at.push_back(series[i].ts);
  std::vector<int64_t> sorted = at;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  const std::vector<std::vector<std::string>> running = RunningAt(t, sorted);
  for (const auto& [step, i] : peaks) {
    const size_t d = static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), series[i].ts) - sorted.begin());
    MemoryPeak p{step, series[i].allocated, series[i].reserved, static_cast<double>(series[i].ts - t0) * kNsToS,
                 running[d]};
    if (step < 0)
      out.peak = p;
    else
      out.steps.push_back(p);
  }
  out.samples = Samples(series);
  return out;
}

}  // namespace paratune
