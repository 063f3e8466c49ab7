// Collective: the collective operations NCCL performs, one enum for the trace readers (nccl-tests
// output, profiler kernels), the analysis and the diagnosis, with their names and the factor
// between algorithm and bus bandwidth.
#pragma once

#include <cstdint>

#include "util/enum_names.h"

namespace paratune {

enum class Collective : uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBroadcast,
  kReduce,
  kSendRecv,
  kOther,  // gather, scatter, NCCL's Generic kernel, an nccl-tests program not listed
};

// "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce",
// "send_recv", "other"
inline constexpr EnumNames<Collective, 8> kCollectiveNames{{{{Collective::kAllReduce, "all_reduce"},
                                                             {Collective::kAllGather, "all_gather"},
                                                             {Collective::kReduceScatter, "reduce_scatter"},
                                                             {Collective::kAllToAll, "all_to_all"},
                                                             {Collective::kBroadcast, "broadcast"},
                                                             {Collective::kReduce, "reduce"},
                                                             {Collective::kSendRecv, "send_recv"},
                                                             {Collective::kOther, "other"}}},
                                                           8};
inline const char* CollectiveName(Collective c) { return kCollectiveNames.Name(c); }

// busbw = algbw * factor on n ranks: 2(n-1)/n for all-reduce, (n-1)/n for all-gather,
// reduce-scatter and all-to-all, 1 for broadcast, reduce and send/recv; 0 for kOther or n < 1
// (nccl-tests doc/PERFORMANCE.md, "Bus bandwidth", and src/*.cu *GetBw).
constexpr double BusBandwidthFactor(Collective c, int n) {
  if (n < 1) return 0;
  const double nd = n;
  switch (c) {
    case Collective::kAllReduce:
      return 2.0 * (nd - 1) / nd;
    case Collective::kAllGather:
    case Collective::kReduceScatter:
    case Collective::kAllToAll:
      return (nd - 1) / nd;
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendRecv:
      return 1.0;
    case Collective::kOther:
      return 0;
  }
  return 0;
}

}  // namespace paratune
