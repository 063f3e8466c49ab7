// HTA's idle-time breakdown (get_idle_time_breakdown) of one rank: per stream, each gap between
// consecutive kernels, memcpys and memsets is host_wait when the next one was launched (CPU
// launch time, linked by correlation on the unfiltered table) after the previous ended, else
// kernel_wait when shorter than the consecutive-kernel delay (30 µs), else other; with the gaps'
// statistics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/rank_rows.h"

namespace paratune {

// One (stream, category) row with its interval statistics.
struct IdleRow {
  int64_t stream = -1;
  std::string category;  // "host_wait", "kernel_wait", "other"
  double idle_s = 0;
  double ratio = 0;   // idle_s / the stream's idle total
  int64_t count = 0;  // gaps counted (the stream's first event has no gap)
  double mean_s = 0, stddev_s = 0, min_s = 0, p25_s = 0, p50_s = 0, p75_s = 0, max_s = 0;
};

// Streams in order of first appearance in the kept rows; per stream, the categories present
// (other always, as HTA lists it).
std::vector<IdleRow> IdleTimeBreakdown(const RankRows& rows, double consecutive_kernel_delay_s);

}  // namespace paratune
