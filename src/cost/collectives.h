// Time of NCCL-style collectives under an alpha-beta model (Hockney 1994; ring and tree costs
// as in Thakur, Rabenseifner & Gropp 2005, "Optimization of Collective Communication Operations
// in MPICH", Sec. 4; NCCL's bus-bandwidth convention from nccl-tests doc/PERFORMANCE.md).
// The links of a group come from its placement on the cluster (hardware/cluster.h PlaceGroup).
#pragma once

#include "hardware/cluster.h"

namespace paratune {

// `bytes`: the full buffer (all-reduce input; all-gather output; reduce-scatter input).
double AllReduceTime(double bytes, int n, const GroupLinks& l);
double AllGatherTime(double bytes, int n, const GroupLinks& l);
double ReduceScatterTime(double bytes, int n, const GroupLinks& l);
// `bytes`: what one rank sends in total (its share to every peer, including itself).
double AllToAllTime(double bytes, int n, const GroupLinks& l);
// Point-to-point send of `bytes` over the link of PlaceSendRecv.
double SendRecvTime(double bytes, const GroupLinks& l);

}  // namespace paratune
