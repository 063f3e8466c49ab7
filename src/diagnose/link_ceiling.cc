#include "diagnose/link_ceiling.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hardware/hardware_catalog.h"
#include "util/error.h"
#include "util/text.h"

namespace paratune {
namespace {

const HardwareCatalog& Catalog() {
  static const HardwareCatalog c = HardwareCatalog::BuiltIn();
  return c;
}

bool HasWord(const std::string& hay, const std::string& word) {
  for (size_t p = hay.find(word); p != std::string::npos; p = hay.find(word, p + 1)) {
    const bool left = p == 0 || !std::isalnum(static_cast<unsigned char>(hay[p - 1]));
    const size_t e = p + word.size();
    const bool right = e >= hay.size() || !std::isalnum(static_cast<unsigned char>(hay[e]));
    if (left && right) return true;
  }
  return false;
}

// cudaDeviceProp::name of the catalog's parts (as nvidia-smi and nccl-tests print them) to
// catalog names, first match wins: every word of `all` present, none of `none`. Names that the
// catalog finds directly (its names and aliases, "A100-SXM4-80GB") need no entry.
struct DevicePattern {
  std::vector<std::string> all, none;
  const char* gpu;
};
const std::vector<DevicePattern>& DevicePatterns() {
  static const std::vector<DevicePattern> p = {
      {{"GB300"}, {}, "GB300"},
      {{"GB200"}, {}, "GB200"},
      {{"B300"}, {}, "B300"},
      {{"B200"}, {}, "B200"},
      {{"H200"}, {"NVL"}, "H200"},
      {{"H800"}, {"PCIE"}, "H800"},
      {{"H20"}, {}, "H20"},
      {{"H100", "PCIE"}, {}, "H100-PCIe"},
      {{"H100", "96GB"}, {}, "H100-96GB-500W"},
      {{"H100"}, {"NVL", "PCIE"}, "H100"},  // "NVIDIA H100 80GB HBM3"
      {{"A100", "PCIE", "80GB"}, {}, "A100-PCIe-80GB"},
      {{"A100", "40GB"}, {"PCIE"}, "A100-40GB"},
      {{"A100", "80GB"}, {"PCIE"}, "A100-80GB"},
  };
  return p;
}

bool Matches(const std::string& upper, const DevicePattern& p) {
  // Words split at spaces and dashes: "A100-SXM4-80GB" has the words A100, SXM4, 80GB.
  std::string spaced = upper;
  std::replace(spaced.begin(), spaced.end(), '-', ' ');
  for (const auto& w : p.all)
    if (!HasWord(spaced, w)) return false;
  for (const auto& w : p.none)
    if (HasWord(spaced, w)) return false;
  return true;
}

}  // namespace

std::string CatalogGpuForDevice(const std::string& device_name) {
  std::string name = device_name;
  for (const char* prefix : {"NVIDIA ", "Tesla "})
    if (name.rfind(prefix, 0) == 0) name = name.substr(std::string(prefix).size());
  for (std::string candidate : {name, [&] {
                                  std::string s = name;
                                  std::replace(s.begin(), s.end(), ' ', '-');
                                  return s;
                                }()}) {
    try {
      return Catalog().Find(candidate).name;
    } catch (const InputError&) {
    }
  }
  const std::string upper = AsciiUpper(name);
  for (const auto& p : DevicePatterns())
    if (Matches(upper, p)) return p.gpu;
  return "";
}

namespace {

// The ceiling of a run over several nodes, into c (its nodes set): the NICs' bandwidth, capped
// by the scale-up link's.
void NetworkCeiling(const NcclTestsRun& run, const Fabric& f, double scale_up_line, double scale_up_eff,
                    const char* link_name, LinkCeiling& c) {
  // Several nodes: each node's share of the ring leaves through the NICs its GPUs drive (one per
  // GPU on rail-optimised nodes), so a ring's bus bandwidth is min(NVLink, NICs x NIC)
  // (nccl-tests doc/PERFORMANCE.md; hardware/cluster.h PlaceGroup). All-to-all cannot aggregate
  // NICs: per GPU it gets its own share of the node's NICs, times N/(N-1) on N nodes because
  // 1/N of its traffic stays in the node (nccl-tests/issues/130 and 267).
  c.link = CeilingLink::kNetwork;
  const int per_node = std::max(1, (run.ranks + c.nodes - 1) / c.nodes);
  const int gpn = std::max(1, f.gpus_per_node);
  const int nics = f.nics_per_node > 0 ? f.nics_per_node : gpn;
  c.nics_used = std::max(1, static_cast<int>(std::lround(static_cast<double>(nics) * std::min(per_node, gpn) / gpn)));
  double oversub = 1;
  if (f.nodes_per_leaf > 0 && c.nodes > f.nodes_per_leaf) oversub = std::max(1.0, f.spine_oversubscription);
  const double node_net_line = c.nics_used * f.nic_bytes_per_s / oversub;
  double line = node_net_line, factor_note = 1;
  if (run.collective == Collective::kAllToAll || run.collective == Collective::kSendRecv) {
    const double per_gpu = node_net_line / per_node;
    factor_note = run.collective == Collective::kAllToAll ? static_cast<double>(c.nodes) / (c.nodes - 1) : 1.0;
    line = per_gpu * factor_note;
  }
  c.line_bytes_per_s = std::min(line, per_node > 1 ? scale_up_line : line);
  c.effective_bytes_per_s =
      std::min(line * kNcclNicEfficiency, per_node > 1 ? scale_up_eff : line * kNcclNicEfficiency);
  c.derivation = fmt::format(
      "{} nodes x {} ranks: {} NIC{} of {:.0f} GB/s per node{}{} x {:.2f} (NCCL over the NIC) = {:.1f} GB/s{}", c.nodes,
      per_node, c.nics_used, c.nics_used == 1 ? "" : "s", f.nic_bytes_per_s / 1e9,
      oversub > 1 ? fmt::format(" / {:.1f} spine oversubscription", oversub) : std::string(),
      factor_note != 1 ? fmt::format(", per GPU x {:.2f} (all-to-all on {} nodes)", factor_note, c.nodes)
                       : std::string(),
      kNcclNicEfficiency, line * kNcclNicEfficiency / 1e9,
      c.effective_bytes_per_s < line * kNcclNicEfficiency
          ? fmt::format(", capped by {} {:.1f} GB/s", link_name, scale_up_eff / 1e9)
          : std::string());
}

}  // namespace

std::optional<LinkCeiling> NcclTestsCeiling(const NcclTestsRun& run, const ClusterSpec* planned) {
  LinkCeiling c;
  std::optional<ClusterSpec> cluster;
  if (!run.devices.empty()) {
    c.gpu = CatalogGpuForDevice(run.devices.front());
    if (!c.gpu.empty()) {
      c.gpu_source = "device name '" + run.devices.front() + "'";
      // The plan's cluster when it is the same chip (it may carry a --fabric or --hardware
      // override), else the chip's reference system.
      if (planned && AsciiUpper(planned->gpu.name) == AsciiUpper(c.gpu))
        cluster = *planned;
      else
        cluster = Catalog().Cluster(c.gpu, std::max(1, run.ranks));
    }
  }
  if (!cluster && planned) {
    cluster = *planned;
    c.gpu = planned->gpu.name;
    c.gpu_source = "--gpu";
  }
  if (!cluster || run.ranks < 1) return std::nullopt;
  const Fabric& f = cluster->fabric;
  const GpuSpec& g = cluster->gpu;
  c.ranks = run.ranks;
  c.nodes = run.nodes > 0 ? run.nodes : (run.ranks + std::max(1, f.gpus_per_node) - 1) / std::max(1, f.gpus_per_node);
  c.scale_up = f.scale_up;
  const double scale_up_line = f.nvlink_bytes_per_s;
  const double scale_up_eff = scale_up_line * kNcclScaleUpEfficiency;
  const bool nvswitch_sharp =
      f.scale_up == LinkClass::kNvlink && (g.generation == "hopper" || g.generation == "blackwell");
  const bool one_domain = c.nodes <= 1 || (f.multi_node_domain() && run.ranks <= f.nvlink_domain);
  const char* link_name = f.scale_up == LinkClass::kPcie ? "PCIe" : "NVLink";
  if (one_domain) {
    c.link = CeilingLink::kScaleUp;
    c.line_bytes_per_s = scale_up_line;
    c.effective_bytes_per_s = scale_up_eff;
    if (run.collective == Collective::kAllReduce && nvswitch_sharp && run.ranks > 1)
      c.nvls_bytes_per_s = scale_up_eff * kNvlsAllReduceGain;
    c.derivation = fmt::format("{} {} {:.0f} GB/s per direction x {:.3f} (NCCL protocol overhead) = {:.1f} GB/s",
                               g.name, link_name, scale_up_line / 1e9, kNcclScaleUpEfficiency, scale_up_eff / 1e9);
    return c;
  }
  NetworkCeiling(run, f, scale_up_line, scale_up_eff, link_name, c);
  return c;
}

std::optional<LinkCeiling> CollectiveCeiling(Collective kind, int group_size, const ClusterSpec& cluster) {
  if (kind == Collective::kOther || group_size < 1) return std::nullopt;
  NcclTestsRun run;
  run.collective = kind;
  run.ranks = group_size;
  run.nodes = 0;  // derived from the fabric's GPUs per node: the packed placement
  return NcclTestsCeiling(run, &cluster);
}

const char* CeilingLinkName(const LinkCeiling& c) {
  if (c.link == CeilingLink::kNetwork) return "network";
  return c.scale_up == LinkClass::kPcie ? "pcie" : "nvlink";
}

// One collective's groups at their ceilings, and the ceiling of the collective as a whole.
void FillCollective(CollectiveStats& c, const ClusterSpec& cluster) {
  double bus = 0, at_ceiling_s = 0;
  std::string link;
  for (CollectiveGroupStats& gs : c.groups) {
    const std::optional<LinkCeiling> ceiling = CollectiveCeiling(c.kind, gs.group_size, cluster);
    if (!ceiling || ceiling->effective_bytes_per_s <= 0) continue;
    gs.ceiling_bytes_per_s = ceiling->effective_bytes_per_s;
    gs.ceiling_link = CeilingLinkName(*ceiling);
    gs.ceiling_derivation = ceiling->derivation;
    if (gs.bus_bytes <= 0) continue;  // a group of one moves nothing over a link
    bus += gs.bus_bytes;
    at_ceiling_s += gs.bus_bytes / ceiling->effective_bytes_per_s;
    link = link.empty() || link == CeilingLinkName(*ceiling) ? CeilingLinkName(*ceiling) : "mixed";
  }
  if (at_ceiling_s > 0) {
    c.ceiling_bytes_per_s = bus / at_ceiling_s;
    c.ceiling_link = link;
  }
}

void FillCollectiveCeilings(TraceAnalysis& a, const ClusterSpec& cluster) {
  a.link_ceiling =
      LinkCeilingBasis{cluster.gpu.name, cluster.fabric.name,
                       "each group's ranks packed onto as few nodes as hold them (the innermost groups on one node)"};
  for (RankAnalysis& r : a.ranks)
    for (CollectiveStats& c : r.collectives) FillCollective(c, cluster);
}

}  // namespace paratune
