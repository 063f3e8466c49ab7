// Time of NCCL-style collectives under an alpha-beta model (Hockney 1994; ring and tree costs
// as in Thakur, Rabenseifner & Gropp 2005, "Optimization of Collective Communication Operations
// in MPICH", Sec. 4; NCCL's bus-bandwidth convention from nccl-tests doc/PERFORMANCE.md).
// A group is placed on the cluster by its size and stride in rank order (Megatron's
// tp-cp-ep-dp-pp order), which decides whether it stays inside an NVLink domain.
#pragma once

#include "hardware/gpu_spec.h"

namespace paratune {

// A group of `size` ranks whose members are `stride` ranks apart.
struct GroupPlacement {
  int size = 1;
  int stride = 1;
};

// The links a group's collectives run over.
struct GroupLinks {
  double bus_bytes_per_s = 0;   // achievable bus bandwidth (bandwidth x NCCL efficiency)
  double latency_s = 0;         // per ring step
  bool crosses_domain = false;  // the group spans more than one NVLink domain
  int per_domain = 1;           // members inside one NVLink domain
  double nvlink_bytes_per_s = 0;  // effective, for the intra-domain part of all-to-all
  double net_bytes_per_s = 0;     // effective, for the inter-domain part
};

GroupLinks LinksFor(const GpuSpec& gpu, const GroupPlacement& g);

// `bytes`: the full buffer (all-reduce input; all-gather output; reduce-scatter input).
double AllReduceTime(double bytes, int n, const GroupLinks& l);
double AllGatherTime(double bytes, int n, const GroupLinks& l);
double ReduceScatterTime(double bytes, int n, const GroupLinks& l);
// `bytes`: what one rank sends in total (its share to every peer, including itself).
double AllToAllTime(double bytes, int n, const GroupLinks& l);
// Point-to-point send of `bytes` between two ranks `stride` apart.
double SendRecvTime(double bytes, const GpuSpec& gpu, int stride);

}  // namespace paratune
