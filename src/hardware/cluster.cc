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

// A PCIe domain of switches: a group of `flows` rings (or transfers) crossing the host at once
// gets at most one ring's host rate each and a share of the host's (SimuMax
// configs/system/a100_pcie.json: 8-GPU rings at 12.5 GB/s, two 4-GPU and four 2-GPU strided
// rings at 7.65 and 3.9-4 GB/s each; docs/hardware.md, "PCIe switches").
void CrossHost(const Fabric& f, int flows, GroupLinks& l) {
  l.bus_bytes_per_s =
      std::min({l.bus_bytes_per_s, f.pcie_host_ring_bytes_per_s, f.pcie_host_bytes_per_s / std::max(1, flows)});
}

// Marks the switch structure of a group of `size` members `stride` apart inside one domain.
void PlaceSwitches(const Fabric& f, int size, long long stride, GroupLinks& l) {
  if (!f.pcie_switches()) return;
  const int sw = f.pcie_gpus_per_switch;
  l.per_switch = static_cast<int>(std::clamp<long long>(sw / std::max(1LL, stride), 1, size));
  const double host =
      f.pcie_host_all_to_all_bytes_per_s > 0 ? f.pcie_host_all_to_all_bytes_per_s : f.pcie_host_bytes_per_s;
  l.host_bytes_per_s = host / sw;
}

}  // namespace

int ClusterSpec::nodes() const { return CeilDiv(gpus, std::max(1, fabric.gpus_per_node)); }

int ClusterSpec::nvlink_domains() const { return CeilDiv(gpus, std::max(1, fabric.nvlink_domain)); }

// "N units of SIZE" when `total` divides into units of `size`; otherwise the partial unit is
// said as it is ("1 node of 8 and 1 with 4 of its 8 GPUs"), never rounded up to a whole one.
static std::string Units(int total, int size, const char* unit, const char* units, const char* of_what) {
  size = std::max(1, size);
  const int full = total / size, rest = total % size;
  const std::string whole = fmt::format("{} {} of {}{}", full, full == 1 ? unit : units, size, of_what);
  if (rest == 0) return whole;
  if (full == 0) return fmt::format("1 {} with {} of its {} GPUs", unit, rest, size);
  return whole + fmt::format(" and 1 with {} of its {} GPUs", rest, size);
}

std::string ClusterSpec::Describe() const {
  if (fabric.multi_node_domain())
    return Units(gpus, fabric.gpus_per_node, "tray", "trays", " GPUs") + " in " +
           Units(gpus, fabric.nvlink_domain, "NVLink domain", "NVLink domains", "");
  return Units(gpus, fabric.gpus_per_node, "node", "nodes", "");
}

GroupLinks PlaceGroup(const ClusterSpec& c, const RankGroup& g) {
  const Fabric& f = c.fabric;
  GroupLinks l;
  l.call_latency_s = g.size > 1 ? f.call_latency_s : 0;
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
    PlaceSwitches(f, g.size, g.stride, l);
    if (f.pcie_switches() && span > f.pcie_gpus_per_switch) CrossHost(f, domain / g.size, l);
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
    // PCIe switches: a pipeline over more than one switch has a hop that crosses the host, and
    // the `stride` sends of the GPUs before that boundary (a whole stage's, when stages fill
    // switches) cross at once; that hop paces the pipeline.
    if (f.pcie_switches()) CrossHost(f, std::min(stride, f.pcie_gpus_per_switch), l);
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
