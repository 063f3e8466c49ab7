// Memory-copy bandwidth as Holistic Trace Analysis counts it (hta/analyzers/trace_counters.py
// get_memory_bw_time_series / get_memory_bw_summary at f4d0062): per kind of memory operation
// (HTA's get_memory_kernel_type: "Memcpy DtoH", "Memcpy HtoD", "Memcpy DtoD", ... the first 11
// characters of a memcpy's name; "Memset"; "Memcpy Unknown"), the bandwidth in flight over time:
// each memcpy or memset of the GPU event set (HTA's MEMORY kernels by name) adds CUPTI's "memory
// bandwidth (GB/s)" (0 where absent, HTA's default) at its start and removes it at its end (a
// 0-length event lasts 1 µs, as HTA rounds it up), the sum taken in time order (at one instant
// ends before starts: HTA's pandas sort leaves that order unspecified). The summary describes the
// series' points above zero (pandas describe: count, mean, sample std, min, quartiles, max) in
// GB/s: how fast copies run while any runs. Slow host-device copies (pageable memory: a few GB/s
// where pinned memory reaches 20-50) show here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/rank_rows.h"

namespace paratune {

struct MemoryBandwidthRow {
  std::string kind;   // "Memcpy DtoH", "Memcpy HtoD", "Memcpy DtoD", "Memset", ...
  int64_t count = 0;  // points above zero
  double mean_gbps = 0, stddev_gbps = 0, min_gbps = 0, p25_gbps = 0, p50_gbps = 0, p75_gbps = 0, max_gbps = 0;
};

// Kinds in name order (HTA groups by name). A kind whose series never rises above zero has no row.
std::vector<MemoryBandwidthRow> MemoryBandwidthSummary(const RankRows& rows);

// HTA's get_memory_kernel_type (hta/utils/utils.py).
std::string MemoryKernelKind(std::string_view name);

}  // namespace paratune
