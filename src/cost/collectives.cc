#include "cost/collectives.h"

#include <algorithm>
#include <cmath>

namespace paratune {
namespace {

// Latency steps of a ring over n ranks (n - 1). NCCL runs all-gather and reduce-scatter as
// rings (PAT, NCCL 2.23, only with one GPU per node), so their latency grows linearly; all-reduce
// switches to trees at scale, 2*ceil(log2 n) steps (NCCL tuning model, src/graph/tuning.cc).
double RingSteps(int n) { return n > 1 ? n - 1 : 0; }
double TreeSteps(int n) { return n > 1 ? 2 * std::ceil(std::log2(static_cast<double>(n))) : 0; }

}  // namespace

double AllReduceTime(double bytes, int n, const GroupLinks& l) {
  if (n <= 1 || bytes <= 0) return 0;
  // Ring: 2(n-1)/n x bytes over the bus bandwidth, 2(n-1) latency steps.
  return 2.0 * (n - 1) / n * bytes / l.bus_bytes_per_s +
         (n <= 8 ? 2 * RingSteps(n) : std::min(2 * RingSteps(n), TreeSteps(n))) * l.latency_s + l.call_latency_s;
}

double AllGatherTime(double bytes, int n, const GroupLinks& l) {
  if (n <= 1 || bytes <= 0) return 0;
  return static_cast<double>(n - 1) / n * bytes / l.bus_bytes_per_s + RingSteps(n) * l.latency_s + l.call_latency_s;
}

double ReduceScatterTime(double bytes, int n, const GroupLinks& l) { return AllGatherTime(bytes, n, l); }

double AllToAllTime(double bytes, int n, const GroupLinks& l) {
  if (n <= 1 || bytes <= 0) return 0;
  // Each rank sends (n-1)/n of its buffer; the part to peers in other domains goes over its
  // NIC, the rest over NVLink, concurrently.
  const int k = std::min(n, std::max(1, l.per_domain));
  double intra = static_cast<double>(k - 1) / n * bytes / l.nvlink_bytes_per_s;
  if (l.per_switch > 0 && l.per_switch < k) {
    // PCIe switches: the peers under other switches are reached through the host, whose rate
    // the GPUs of a switch share (GroupLinks::host_bytes_per_s), alongside the in-switch peers.
    const int s = l.per_switch;
    intra = std::max(static_cast<double>(s - 1) / n * bytes / l.nvlink_bytes_per_s,
                     static_cast<double>(k - s) / n * bytes / l.host_bytes_per_s);
  }
  const double inter = l.crosses_domain ? static_cast<double>(n - k) / n * bytes / l.net_bytes_per_s : 0;
  return std::max(intra, inter) + RingSteps(n) * l.latency_s;
}

double SendRecvTime(double bytes, const GroupLinks& l) {
  if (bytes <= 0) return 0;
  return bytes / l.bus_bytes_per_s + l.latency_s;
}

}  // namespace paratune
