#include "analysis/rank_rows.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace paratune {

NsIntervals MergeNs(NsIntervals v) {
  std::sort(v.begin(), v.end());
  NsIntervals out;
  for (const auto& [a, b] : v) {
    if (b <= a) continue;
    if (!out.empty() && a <= out.back().second)
      out.back().second = std::max(out.back().second, b);
    else
      out.emplace_back(a, b);
  }
  return out;
}

int64_t ProfilerStepNumber(std::string_view name) {
  static constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.size() <= kPrefix.size() || name.compare(0, kPrefix.size(), kPrefix) != 0) return -1;
  int64_t n = 0;
  size_t i = kPrefix.size();
  if (name[i] < '0' || name[i] > '9') return -1;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && n < (int64_t{1} << 50); ++i)
    n = n * 10 + (name[i] - '0');
  return n;
}

Row RowOf(const TraceEvent& e, uint32_t index, bool rounded) {
  Row r;
  r.index = index;
  if (!rounded) {
    r.ts = e.ts_ns;
    r.end = e.ts_ns + e.dur_ns;
    return r;
  }
  // HTA's arithmetic is pandas float64 on µs (hta/common/trace_parser.py, round_down_time_stamps):
  // end = floor(ts + dur), ts = ceil(ts). At epoch scale (1.7e15 µs) a double resolves only
  // 0.25 µs, so the rounding is reproduced in double, not in exact ns.
  const int64_t whole_us = e.ts_ns / 1000 - (e.ts_ns % 1000 < 0 ? 1 : 0);  // floor
  const double ts_us = static_cast<double>(whole_us) + static_cast<double>(e.ts_ns - whole_us * 1000) / 1000.0;
  const double dur_us = static_cast<double>(e.dur_ns) / 1000.0;
  r.end = static_cast<int64_t>(std::floor(ts_us + dur_us)) * 1000;
  r.ts = static_cast<int64_t>(std::ceil(ts_us)) * 1000;
  return r;
}

bool IsDataLoaderOp(std::string_view name) {
  return name.find("DataLoader") != std::string_view::npos || name.find("dataloader") != std::string_view::npos;
}

CorrelationMap::Range::Range(const std::vector<TraceEvent>& events) {
  for (const TraceEvent& e : events)
    if (e.correlation >= 0) lo = std::min(lo, e.correlation), hi = std::max(hi, e.correlation), ++n;
}

CorrelationMap::CorrelationMap(const Range& r) {
  if (r.n > 0 && r.hi - r.lo < 4 * r.n + (1 << 20)) {
    lo_ = r.lo;
    dense_.assign(static_cast<size_t>(r.hi - r.lo + 1), kAbsent);
  }
}

NameFacts::NameFacts(const std::vector<std::string>& names)
    : type(names.size()), step(names.size()), sync(names.size()), loader(names.size()), launch(names.size()) {
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    type[i] = HtaKernelTypeOf(n);
    step[i] = ProfilerStepNumber(n);
    sync[i] = n == "Event Sync" || n == "Context Sync";
    loader[i] = IsDataLoaderOp(n);
    launch[i] =
        n == "cudaLaunchKernel" || n == "cudaLaunchKernelExC" || n == "cudaMemcpyAsync" || n == "cudaMemsetAsync";
  }
}

namespace {

// The first pass over the events: the launch time of each correlation (the last CPU-side row with
// it, on the unfiltered table) and the bound of HTA's last-step filter (the last ProfilerStep's
// start, else the first CPU row's).
int64_t LaunchTimesAndLastStep(RankRows& rr, bool rounded) {
  const std::vector<TraceEvent>& events = rr.trace->events;
  int64_t last_start = std::numeric_limits<int64_t>::min();
  bool any_step = false;
  int64_t min_cpu = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    if (rr.GpuSide(e)) continue;
    const int64_t ts = RowOf(e, static_cast<uint32_t>(i), rounded).ts;
    if (e.correlation >= 0) rr.launch_ts.Set(e.correlation, ts);
    min_cpu = std::min(min_cpu, ts);
    if (rr.names.step[e.name] >= 0) {
      any_step = true;
      last_start = std::max(last_start, ts);
    }
  }
  return any_step ? last_start : min_cpu;
}

// Fills rr.kept with the rows HTA's last-step filter keeps: CPU-side rows that start before
// `last_start`, then GPU-side rows whose correlation belongs to a kept CPU row. The rows are made
// straight from the events (no table of every row first: a 1 GB trace's 56 MB less to fault in).
void KeepBeforeLastStep(RankRows& rr, bool rounded, int64_t last_start) {
  const std::vector<TraceEvent>& events = rr.trace->events;
  CorrelationMap kept_corr(rr.corr_range);
  rr.kept.reserve(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    if (rr.GpuSide(e)) continue;
    const Row r = RowOf(e, static_cast<uint32_t>(i), rounded);
    if (r.ts < last_start) {
      rr.kept.push_back(r);
      if (e.correlation >= 0) kept_corr.Set(e.correlation, 1);
    }
  }
  for (size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    if (rr.GpuSide(e) && kept_corr.Get(e.correlation) != CorrelationMap::kAbsent)
      rr.kept.push_back(RowOf(e, static_cast<uint32_t>(i), rounded));
  }
}

}  // namespace

// The rows of one rank: all events with HTA's optional rounding, the launch-time map on the
// unfiltered table, HTA's last-step filter, and the GPU event set.
void BuildRankRows(RankRows& rr, bool rounded, bool filter_last_step) {
  const std::vector<TraceEvent>& events = rr.trace->events;
  const int64_t last_start = LaunchTimesAndLastStep(rr, rounded);
  if (filter_last_step) {
    KeepBeforeLastStep(rr, rounded, last_start);
  } else {
    rr.kept.resize(events.size());
    for (size_t i = 0; i < events.size(); ++i) rr.kept[i] = RowOf(events[i], static_cast<uint32_t>(i), rounded);
  }

  // The GPU event set: stream != -1, counted first so that it is allocated once.
  size_t gpu_rows = 0;
  for (const Row& r : rr.kept) gpu_rows += rr.Event(r).stream != -1;
  rr.gpu.reserve(gpu_rows);
  for (const Row& r : rr.kept)
    if (rr.Event(r).stream != -1) rr.gpu.push_back(r);
  std::stable_sort(rr.gpu.begin(), rr.gpu.end(), [](const Row& a, const Row& b) { return a.ts < b.ts; });
  rr.gpu_types = rr.TypesOf(rr.gpu);
  rr.origin = rr.gpu.empty() ? 0 : rr.gpu.front().ts;
}

RankRows::RankRows(const RankTrace& t) : trace(&t), names(t.names), corr_range(t.events), launch_ts(corr_range) {}

std::vector<HtaKernelType> RankRows::TypesOf(const std::vector<Row>& rows) const {
  std::vector<HtaKernelType> v(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) v[i] = names.type[Event(rows[i]).name];
  return v;
}

}  // namespace paratune
