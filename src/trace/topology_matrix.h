// TopologyMatrix: what `nvidia-smi topo -m` prints: how each pair of GPUs (and NICs) is
// connected (X, NV#, PIX, PXB, PHB, NODE, SYS, SOC), with each GPU's CPU and NUMA affinity, and
// the NIC names from the legend. Tab- or space-separated; the header row has one field fewer than
// a GPU row; a column called "GPU NUMA ID" is an affinity column, not a GPU.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace paratune {

enum class TopoLinkKind { kSelf, kNvlink, kPix, kPxb, kPhb, kNode, kSys, kSoc, kUnknown };

struct TopoLink {
  TopoLinkKind kind = TopoLinkKind::kUnknown;
  int nvlinks = 0;  // NV#: the number of bonded NVLinks; 0 otherwise
};

struct TopologyMatrix {
  std::string path;
  std::vector<std::string> devices;          // row/column names in order: "GPU0", ..., "NIC0", ...
  int gpu_count = 0;                         // devices[0 .. gpu_count) are the GPUs
  std::vector<std::vector<TopoLink>> links;  // links[i][j] for devices i, j
  std::vector<int> row_lines;                // 1-based line of each device's row
  std::vector<std::string> cpu_affinity;     // per GPU, as printed ("0-51"); empty when absent
  std::vector<std::string> numa_affinity;    // per GPU ("0", "N/A")
  std::vector<std::string> gpu_numa_id;      // per GPU ("N/A"; newer drivers print this column)
  int header_line = 0;                       // 1-based line of the column header
  std::vector<std::string> nic_names;        // per NIC, from the "NIC Legend" ("mlx5_0"); empty when absent
};

bool LooksLikeTopologyMatrix(std::string_view head);
TopologyMatrix ParseTopologyMatrix(std::string_view text, const std::string& where);
TopologyMatrix ReadTopologyMatrix(const std::string& path);
const char* TopoLinkKindName(TopoLinkKind k);  // "NV", "PIX", ...
// "NV18", "PIX", "X": the link as the matrix prints it.
std::string TopoLinkText(const TopoLink& l);
// How far apart the link puts two devices, nearest first (X < NV# < PIX < PXB < PHB < NODE <
// SYS/SOC), from the nvidia-smi legend: NV# bonded NVLinks; PIX at most one PCIe bridge; PXB
// several PCIe bridges without the host bridge; PHB a PCIe host bridge (the CPU); NODE across
// host bridges inside one NUMA node; SYS (older drivers: SOC) across the SMP interconnect
// between NUMA nodes (QPI/UPI).
int TopoLinkDistance(TopoLinkKind k);

}  // namespace paratune
