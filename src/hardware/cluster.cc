#include "hardware/cluster.h"

#include <algorithm>
#include <fmt/format.h>

namespace paratune {
namespace {

int CeilDiv(long long a, long long b) { return static_cast<int>((a + b - 1) / std::max(1LL, b)); }

// Nodes spanned by `span` consecutive ranks.
int NodesSpanned(const Fabric& f, long long span) { return CeilDiv(span, std::max(1, f.gpus_per_node)); }

// The calibrated share of the scale-up link's bandwidth NCCL reaches: NVLink's, or PCIe's on
// machines without NVLink (their rings cross the host's PCIe switches and root complex).
double ScaleUpEfficiency(const ClusterSpec& c) {
  return c.fabric.scale_up == LinkClass::kPcie ? c.gpu.calibration.pcie : c.gpu.calibration.nvlink;
}

}  // namespace

int ClusterSpec::nodes() const { return CeilDiv(gpus, std::max(1, fabric.gpus_per_node)); }

int ClusterSpec::nvlink_domains() const { return CeilDiv(gpus, std::max(1, fabric.nvlink_domain)); }

std::string ClusterSpec::Describe() const {
  const int n = nodes();
  if (fabric.multi_node_domain()) {
    const int d = nvlink_domains();
    return fmt::format("{} {} of {} GPUs in {} NVLink domain{} of {}", n, n == 1 ? "tray" : "trays", fabric.gpus_per_node,
                       d, d == 1 ? "" : "s", fabric.nvlink_domain);
  }
  return fmt::format("{} {} of {}", n, n == 1 ? "node" : "nodes", fabric.gpus_per_node);
}

GroupLinks PlaceGroup(const ClusterSpec& c, const RankGroup& g) {
  const Fabric& f = c.fabric;
  GroupLinks l;
  const double nvl = f.nvlink_bytes_per_s * ScaleUpEfficiency(c);
  double net = f.net_bytes_per_s() * c.gpu.calibration.net;
  l.nvlink_bytes_per_s = nvl;
  l.net_bytes_per_s = net;
  const long long span = static_cast<long long>(g.size) * g.stride;
  const int domain = std::max(1, f.nvlink_domain);
  if (g.size <= 1) {
    l.bus_bytes_per_s = nvl;
    return l;
  }
  if (span <= domain) {
    l.link = f.scale_up;
    l.bus_bytes_per_s = nvl;
    l.latency_s = f.nvlink_latency_s;
    l.per_domain = g.size;
    return l;
  }
  l.link = LinkClass::kLeaf;
  if (f.nodes_per_leaf > 0 && NodesSpanned(f, span) > f.nodes_per_leaf) {
    l.link = LinkClass::kSpine;
    net /= std::max(1.0, f.spine_oversubscription);
    l.net_bytes_per_s = net;
  }
  const int k = static_cast<int>(std::max<long long>(1, domain / std::max(1, g.stride)));
  l.per_domain = std::min(k, g.size);
  l.crosses_domain = true;
  l.bus_bytes_per_s = std::min(nvl, l.per_domain * net);
  l.latency_s = f.net_latency_s;
  return l;
}

GroupLinks PlaceSendRecv(const ClusterSpec& c, int stride) {
  const Fabric& f = c.fabric;
  GroupLinks l;
  l.per_domain = 1;
  l.nvlink_bytes_per_s = f.nvlink_bytes_per_s * ScaleUpEfficiency(c);
  l.net_bytes_per_s = f.net_bytes_per_s() * c.gpu.calibration.net;
  if (stride < f.nvlink_domain) {
    l.link = f.scale_up;
    l.bus_bytes_per_s = l.nvlink_bytes_per_s;
    l.latency_s = f.nvlink_latency_s;
    return l;
  }
  l.crosses_domain = true;
  l.link = LinkClass::kLeaf;
  if (f.nodes_per_leaf > 0 && NodesSpanned(f, static_cast<long long>(stride) + 1) > f.nodes_per_leaf) {
    l.link = LinkClass::kSpine;
    l.net_bytes_per_s /= std::max(1.0, f.spine_oversubscription);
  }
  l.bus_bytes_per_s = l.net_bytes_per_s;
  l.latency_s = f.net_latency_s;
  return l;
}

}  // namespace paratune
