// Per-collective figures of one rank's measured communication kernels: how long they ran, how
// much of that no computation hid, and the algorithm and bus bandwidth they reached, in the
// convention of nccl-tests (github.com/NVIDIA/nccl-tests, doc/PERFORMANCE.md) so measured
// kernels compare directly with an nccl-tests run on the same machine.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/kernel_class.h"
#include "trace/trace_event.h"
#include "util/collective.h"

namespace paratune {

// Bytes per element of a PyTorch dtype name as the profiler writes it (c10::toString of the
// ScalarType), case-insensitive: Float/Float32 4, Double/Float64 8, Half/Float16/BFloat16 2,
// Float8_* 1, Byte/Char/Bool/Int8/UInt8 1, Short/Int16/UInt16 2, Int/Int32/UInt32 4,
// Long/Int64/UInt64 8, ComplexHalf 4, ComplexFloat 8, ComplexDouble 16. 0 when unknown.
int DtypeBytes(std::string_view dtype);

// The sized kernels of one collective kind with one group size: a kind's kernels may run in
// groups of different sizes (tensor-parallel all-gathers in 8, data-parallel ones in 64), which
// cross different links, so a link ceiling belongs to a group size, not to the kind.
struct CollectiveGroupStats {
  int group_size = 0;
  int64_t sized_count = 0;
  double bytes = 0;      // sum of S
  double bus_bytes = 0;  // sum of S * BusBandwidthFactor(kind, group_size)
  double sized_time_s = 0;
  double busbw_bytes_per_s = 0;  // bus_bytes / sized_time_s (0 when sized_time_s is 0)
  // The link this group's collectives cross and its achievable bus bandwidth, set by
  // diagnose/link_ceiling.h FillCollectiveCeilings when the GPU is known; NaN and "" until then.
  double ceiling_bytes_per_s = std::numeric_limits<double>::quiet_NaN();
  std::string ceiling_link;
  std::string ceiling_derivation;
};

struct CollectiveStats {
  Collective kind = Collective::kOther;
  int64_t count = 0;                         // kernels
  double total_s = 0;                        // sum of kernel durations
  double exposed_s = 0;                      // part of those kernels' time (union per kind) not overlapping any
                                             // COMPUTATION kernel of the same rank
  int64_t sized_count = 0;                   // kernels carrying message size, dtype and group size
  double bytes = 0;                          // sum of S over sized kernels
  double sized_time_s = 0;                   // their total duration
  double algbw_bytes_per_s = 0;              // bytes / sized_time_s (0 when none sized)
  double busbw_bytes_per_s = 0;              // sum(S * BusBandwidthFactor) / sized_time_s
  std::vector<CollectiveGroupStats> groups;  // the sized kernels by group size, ascending
  // The groups' ceilings combined (their bus bytes over the time at each group's ceiling) and
  // the link ("mixed" when the groups cross different ones); NaN and "" without a ceiling.
  double ceiling_bytes_per_s = std::numeric_limits<double>::quiet_NaN();
  std::string ceiling_link;
};

// The hardware the collectives' ceilings were judged for (analyze --gpu).
struct LinkCeilingBasis {
  std::string gpu;
  std::string fabric;
  std::string assumption;  // how the groups' ranks were placed on nodes
};

// `events` are indices into t.events of the GPU events to analyse (already filtered by the
// caller; indices out of range are skipped). Communication kernels (EventKind::kKernel with
// HtaKernelType kCommunication) are grouped by CollectiveKindOf. Compute intervals are the
// EventKind::kKernel events among `events` with HtaKernelType kComputation and stream != -1
// (kernels only: a gpu_user_annotation such as "ProfilerStep#3" would otherwise cover the step).
// S, the message size as nccl-tests defines it: all-gather the total output ("Out msg nelems" x
// dtype bytes), reduce-scatter, all-reduce, broadcast, reduce, all-to-all and send/recv the input
// ("In msg nelems" x dtype bytes). A kernel is sized when its CollectiveArgs give that count
// (>= 0), a known dtype, a group size >= 1, and its kind is not kOther.
// Sorted by total_s descending (ties by kind).
std::vector<CollectiveStats> ComputeCollectiveStats(const RankTrace& t, const std::vector<uint32_t>& events);

}  // namespace paratune
