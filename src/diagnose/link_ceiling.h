// LinkCeiling: the bus bandwidth an nccl-tests run can reach on the links it crosses, from the
// hardware catalog: the line rate of the link (NVLink per direction, or the NICs of a node) and
// the effective ceiling NCCL reaches on it after its protocol overhead. Used by the
// network_bottleneck rule (docs/diagnose-network.md, "Ceilings").
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "analysis/kernel_class.h"
#include "analysis/trace_analysis.h"
#include "hardware/cluster.h"
#include "trace/nccl_tests.h"

namespace paratune {

// NCCL's effective NVLink bandwidth is ~370 GB/s of H100's 450 GB/s per-direction line rate
// ("With the protocol overhead (~20%) NCCL can get an effective NVLink bandwidth of 370GB/s",
// NCCL maintainer, github.com/NVIDIA/nccl-tests/issues/212; "the real target for NCCL BusBW
// intra-node", github.com/NVIDIA/nccl/issues/1442). The same protocol fraction is applied to
// every generation's NVLink and to PCIe scale-up links.
inline constexpr double kNcclScaleUpEfficiency = 370.0 / 450.0;
// NVLink SHARP (NVLS, NVSwitch 3 and later: Hopper, Blackwell) all-reduce: ~480 GB/s busbw on 8
// H100 against 370 with the ring ("a 30% improvement using NVLink SHARP", nccl/issues/1442;
// "peak busBw of ~480GB/s", nccl-tests/issues/212). Reported, never the threshold: the ring's
// 370 is a healthy result too.
inline constexpr double kNvlsAllReduceGain = 480.0 / 370.0;
// ConnectX-7 at NDR (400 Gb/s = 50 GB/s): "should achieve up to 48-49GB/s per NIC"
// (nccl-tests/issues/267); DGX A100, 8 x 200 Gb/s: 192 GB/s all-reduce busbw (nccl/issues/812,
// quoted in nccl/issues/1576): 0.96 of the line rate both times.
inline constexpr double kNcclNicEfficiency = 0.96;

enum class CeilingLink { kScaleUp, kNetwork };

struct LinkCeiling {
  std::string gpu;         // catalog GPU name
  std::string gpu_source;  // "device name 'NVIDIA H100 80GB HBM3'" or "--gpu"
  CeilingLink link = CeilingLink::kScaleUp;
  LinkClass scale_up = LinkClass::kNvlink;  // kNvlink or kPcie when link == kScaleUp
  int ranks = 0;
  int nodes = 1;
  int nics_used = 0;                 // per node, when link == kNetwork
  double line_bytes_per_s = 0;       // the bus bandwidth at line rate
  double effective_bytes_per_s = 0;  // what NCCL reaches: the threshold's reference
  double nvls_bytes_per_s = 0;       // all-reduce with NVLink SHARP; 0 when not applicable
  std::string derivation;            // one line: how the numbers follow from the catalog
};

// The catalog GPU of a device name as CUDA prints it ("NVIDIA H100 80GB HBM3",
// "NVIDIA A100-SXM4-80GB", "NVIDIA H100 PCIe"); empty when none matches.
std::string CatalogGpuForDevice(const std::string& device_name);

// The ceiling of `run`: its GPU from the Rank lines' device names, else from `planned` (the
// plan's cluster); nodes from the Rank lines' hosts, else ranks / GPUs per node. nullopt when
// neither names a known GPU or the run's ranks are unknown.
std::optional<LinkCeiling> NcclTestsCeiling(const NcclTestsRun& run, const ClusterSpec* planned);

// The ceiling of a profiled collective of `kind` over `group_size` ranks on `cluster`, computed
// as NcclTestsCeiling computes an nccl-tests run of that collective on that many ranks: the
// group's ranks are taken to be packed onto as few nodes as they fit (Megatron's rank order puts
// the innermost groups, TP then CP/EP, on consecutive ranks of one node; a trace says the group's
// size, not which ranks it holds), so a group inside the NVLink domain gets the scale-up ceiling
// and a larger one the network's. nullopt for kOther or group_size < 1.
std::optional<LinkCeiling> CollectiveCeiling(Collective kind, int group_size, const ClusterSpec& cluster);

// "nvlink", "pcie" or "network": the link a ceiling belongs to, as the JSON names it.
const char* CeilingLinkName(const LinkCeiling& c);

// Sets the link ceilings of `a` for `cluster` (docs/json.md paratune.analyze/1): link_ceiling
// {gpu, fabric, assumption}, each group's ceiling_bytes_per_s (the effective ceiling),
// ceiling_link and ceiling_derivation, and each collective's ceiling_bytes_per_s: the bus
// bandwidth its sized kernels reach when every group runs at its own ceiling,
// sum(bus_bytes) / sum(bus_bytes / ceiling), with ceiling_link the groups' link or "mixed".
void FillCollectiveCeilings(TraceAnalysis& a, const ClusterSpec& cluster);

}  // namespace paratune
