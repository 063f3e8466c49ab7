// The CUDA launch queue of each stream, as Holistic Trace Analysis counts it
// (hta/analyzers/trace_counters.py get_queue_length_time_series / get_queue_length_summary at
// f4d0062): the queue length of a stream is the number of operations the CPU has launched on it
// that have not started on the GPU. It rises by one at each launch call (cudaLaunchKernel(ExC),
// cuLaunchKernel(Ex), cudaMemcpyAsync, cudaMemsetAsync and their HIP counterparts) that has a
// correlated GPU event, on that event's stream, and falls by one when such an event starts. GPU
// events of CUDA graph replays have no such launch call and are left out, as in HTA (so the
// series never goes negative: HTA's negative_queue_length_values_check trace). The summary of a
// stream describes the series' points (pandas describe: count, mean, sample std, min, quartiles
// with linear interpolation, max); the time-weighted mean, beyond HTA, weighs each value by how
// long it holds. A short queue (0-1) means the CPU launches just in time and the GPU waits on it;
// a long one that the GPU is the bottleneck.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "analysis/rank_rows.h"

namespace paratune {

struct QueueLengthRow {
  int64_t stream = -1;
  int64_t count = 0;  // points of the series (launches and starts)
  double mean = 0, stddev = 0, min = 0, p25 = 0, p50 = 0, p75 = 0, max = 0;
  double time_weighted_mean = 0;  // over [first point, last point] of the stream
};

// Streams ascending (HTA groups by stream). Points at the same time: launches before starts.
std::vector<QueueLengthRow> QueueLengthSummary(const RankRows& rows);

// A point of the series: a launch (+1) or a GPU event's start (-1) on a stream; `id` is the
// caller's (the critical path's launch queue uses the same series, critical_path.cc).
struct QueuePoint {
  int64_t ts = 0;
  int64_t stream = -1;
  uint32_t id = 0;
  int delta = 0;
};

// HTA's series (get_queue_length_time_series): sorts `points` by time, a launch before a start at
// the same time and otherwise in the given order, and returns each point's stream's queue length
// after it, in that order.
std::vector<int64_t> QueueLengthSeries(std::vector<QueuePoint>& points);

// HTA's runtime launch events (trace_symbol_table.py get_runtime_launch_events_mask).
bool IsHtaLaunchCall(std::string_view name);

}  // namespace paratune
