// Time of NCCL-style collectives under an alpha-beta model (Hockney 1994; ring and tree costs
// as in Thakur, Rabenseifner & Gropp 2005, "Optimization of Collective Communication Operations
// in MPICH", Sec. 4; NCCL's bus-bandwidth convention from nccl-tests doc/PERFORMANCE.md).
// The links of a group come from its placement on the cluster (hardware/cluster.h PlaceGroup).
// An all-gather, reduce-scatter or all-reduce also pays a fixed cost per call
// (GroupLinks::call_latency_s), as SimuMax's fit of NCCL on B200 separates it
// (MooreThreads/SimuMax configs/system/b200_bf16_ceperm.json: time = bytes / bw + latency_us x
// steps + fixed_latency_us; simumax/core/config.py).
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
