// One rank's events as the measured metrics see them (shared by temporal.cc, kernels.cc,
// idle_time.cc, launches.cc and iterations.cc): times after HTA's optional µs rounding, the rows
// kept by HTA's last-step filter, the GPU event set, per-name classification done once per
// distinct name, and the correlation-id maps that link a GPU event to its CPU launch. Built by
// BuildRankRows below; the metrics only read it.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/kernel_class.h"
#include "trace/trace_event.h"

namespace paratune {

constexpr double kNsToS = 1e-9;

// One event: times (ns) after the optional HTA rounding, and its index into RankTrace::events.
struct Row {
  int64_t ts = 0;
  int64_t end = 0;
  uint32_t index = 0;
};

// [start, end) intervals in ns.
using NsIntervals = std::vector<std::pair<int64_t, int64_t>>;

// An event's row: its times as HTA reads them when `rounded` (whole µs, inward: ts = ceil(ts),
// end = floor(ts + dur)), else its ns times.
Row RowOf(const TraceEvent& e, uint32_t index, bool rounded);

// The merged union of `v`, sorted; zero-length intervals dropped.
NsIntervals MergeNs(NsIntervals v);

// ProfilerStep#N -> N (HTA's regex ^ProfilerStep#(\d+) needs only a prefix), or -1.
int64_t ProfilerStepNumber(std::string_view name);

// Data-loader operators: names containing "DataLoader" or "dataloader".
bool IsDataLoaderOp(std::string_view name);

// correlation id -> value. Kineto's and CUPTI's correlation ids are small consecutive integers,
// so a flat array indexed by (id - min) replaces hashing when the ids are dense enough; sparse
// ids fall back to a hash map.
class CorrelationMap {
 public:
  static constexpr int64_t kAbsent = std::numeric_limits<int64_t>::min();
  // The range of the correlation ids of a trace's events: computed once, shared by the maps.
  struct Range {
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min(), n = 0;
    explicit Range(const std::vector<TraceEvent>& events);
  };
  explicit CorrelationMap(const Range& r);
  void Set(int64_t corr, int64_t v) {
    if (!dense_.empty())
      dense_[static_cast<size_t>(corr - lo_)] = v;
    else
      sparse_[corr] = v;
  }
  int64_t Get(int64_t corr) const {
    if (corr < 0) return kAbsent;
    if (!dense_.empty()) {
      const int64_t i = corr - lo_;
      return (i < 0 || i >= static_cast<int64_t>(dense_.size())) ? kAbsent : dense_[static_cast<size_t>(i)];
    }
    const auto it = sparse_.find(corr);
    return it == sparse_.end() ? kAbsent : it->second;
  }

 private:
  int64_t lo_ = 0;
  std::vector<int64_t> dense_;
  std::unordered_map<int64_t, int64_t> sparse_;
};

// What each distinct name of a rank is, decided once per name (indexed by TraceEvent::name).
struct NameFacts {
  std::vector<HtaKernelType> type;
  std::vector<int64_t> step;    // ProfilerStepNumber, -1 if none
  std::vector<uint8_t> sync;    // "Event Sync" / "Context Sync"
  std::vector<uint8_t> loader;  // IsDataLoaderOp
  std::vector<uint8_t> launch;  // cudaLaunchKernel(ExC), cudaMemcpyAsync, cudaMemsetAsync
  explicit NameFacts(const std::vector<std::string>& names);
};

struct RankRows {
  const RankTrace* trace = nullptr;
  NameFacts names;
  CorrelationMap::Range corr_range;
  CorrelationMap launch_ts;              // launch time of each correlation: the last CPU-side row with it (unfiltered)
  std::vector<Row> kept;                 // after HTA's last-step filter (CPU rows in file order, then GPU rows)
  std::vector<Row> gpu;                  // the GPU event set: kept rows with stream != -1, by start
  std::vector<HtaKernelType> gpu_types;  // parallel to gpu
  int64_t origin = 0;                    // start of the first GPU row (interval arithmetic is relative to it)

  explicit RankRows(const RankTrace& t);
  const TraceEvent& Event(const Row& r) const { return trace->events[r.index]; }
  // GPU-side as HTA's last-step filter sees it: on a stream with a correlation, or a sync.
  bool GpuSide(const TraceEvent& e) const { return (e.stream >= 0 && e.correlation >= 0) || names.sync[e.name]; }
  std::vector<HtaKernelType> TypesOf(const std::vector<Row>& rows) const;
};

// Fills `rr` (constructed on its trace): every event's row with HTA's optional rounding, the
// launch-time map on the unfiltered table, HTA's last-step filter (when asked) and the GPU set.
void BuildRankRows(RankRows& rr, bool rounded, bool filter_last_step);

}  // namespace paratune
