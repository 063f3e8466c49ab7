// HTA's temporal breakdown (get_temporal_breakdown) and communication/computation overlap
// (get_comm_comp_overlap) of a set of GPU rows, in the shared vocabulary of timeline/breakdown.h:
// window = last end - first start (HTA's kernel time), compute = |U(COMPUTATION)|, non-compute =
// the rest of |U(all rows)| (communication, memory, syncs not under compute), idle = window -
// both; overlap = |U(COMPUTATION) ∩ U(COMMUNICATION)| / |U(COMMUNICATION)|.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "analysis/rank_rows.h"
#include "timeline/breakdown.h"

namespace paratune {

struct RowsBreakdown {
  GpuTimeBreakdown temporal;
  double overlap_pct = std::numeric_limits<double>::quiet_NaN();  // NaN: no communication
};

// `types` is parallel to `rows`; times are taken relative to `origin` (ns) before converting to
// seconds, so that epoch timestamps keep their precision.
GpuTimeBreakdown TemporalBreakdown(const std::vector<Row>& rows, const std::vector<HtaKernelType>& types,
                                   int64_t origin);
double CommCompOverlapPct(const std::vector<Row>& rows, const std::vector<HtaKernelType>& types, int64_t origin);
RowsBreakdown BreakdownRows(const std::vector<Row>& rows, const std::vector<HtaKernelType>& types, int64_t origin);

}  // namespace paratune
