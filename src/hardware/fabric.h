// Fabric: how GPUs are wired into a cluster. Scale-up: nodes of gpus_per_node GPUs inside NVLink
// domains of nvlink_domain GPUs (8 on HGX, 72 on NVL72, where a "node" is a 4-GPU compute tray).
// Scale-out: NICs per node, under leaf switches of nodes_per_leaf nodes, the leaves under a spine
// whose uplinks are oversubscribed by spine_oversubscription. Bandwidths per direction, SI units.
// The placement of a group of ranks on these links is hardware/cluster.h.
#pragma once

#include <string>

#include "util/enum_names.h"

namespace paratune {

// The outermost link class a group's traffic crosses. kNvlink and kPcie are the two scale-up
// links a fabric's domain can have (Fabric::scale_up); kLeaf and kSpine are the network.
enum class LinkClass { kNone, kNvlink, kPcie, kLeaf, kSpine };
inline constexpr EnumNames<LinkClass, 5> kLinkClassNames{{{{LinkClass::kNone, "none"},
                                                           {LinkClass::kNvlink, "nvlink"},
                                                           {LinkClass::kPcie, "pcie"},
                                                           {LinkClass::kLeaf, "leaf"},
                                                           {LinkClass::kSpine, "spine"}}},
                                                         5};
inline const char* LinkClassName(LinkClass l) { return kLinkClassNames.Name(l); }

struct Fabric {
  std::string name;  // the GPU it is the reference system of, or a [fabric.NAME]
  std::string description;
  int gpus_per_node = 0;
  // The scale-up domain: nvlink_domain GPUs that reach each other over one link class, NVLink
  // (HGX, NVL72) or PCIe (PCIe servers without NVLink, where GPU-to-GPU traffic crosses PCIe
  // switches and the host). The nvlink_* fields describe that link whichever class it is.
  LinkClass scale_up = LinkClass::kNvlink;  // kNvlink or kPcie
  int nvlink_domain = 0;                    // GPUs that share one scale-up fabric
  double nvlink_bytes_per_s = 0;            // per GPU
  double nvlink_latency_s = 0;              // per step of an NCCL collective
  // Fixed cost of one NCCL all-gather, reduce-scatter or all-reduce, on top of its steps (kernel
  // launch and protocol setup: what a collective of any size pays once, inside the domain or
  // across it); 0 where not measured (docs/hardware.md, "Collective latency on Blackwell").
  double call_latency_s = 0;
  int nics_per_node = 0;       // scale-out NICs; one per GPU on rail-optimised nodes
  double nic_bytes_per_s = 0;  // per NIC
  double net_latency_s = 0;
  int nodes_per_leaf = 0;             // nodes under one leaf switch; 0: one non-blocking network
  double spine_oversubscription = 1;  // leaf downlink : uplink bandwidth; 1 = non-blocking
  // A PCIe scale-up domain built of PCIe switches of pcie_gpus_per_switch GPUs (0: one flat
  // PCIe fabric). Inside a switch a ring runs at the PCIe link x calibration `pcie`; a ring
  // whose members sit under different switches crosses the host (root complex, socket link) at
  // no more than pcie_host_ring_bytes_per_s, and all rings crossing at once share
  // pcie_host_bytes_per_s per direction. An all-to-all, whose every GPU sends to every peer
  // under the other switches at once (many concurrent peer-to-peer streams, not one ring hop
  // per channel), moves pcie_host_all_to_all_bytes_per_s across the host per direction (0:
  // pcie_host_bytes_per_s). All three are achieved NCCL rates, measured (docs/hardware.md,
  // "PCIe switches"); none is fitted.
  int pcie_gpus_per_switch = 0;
  double pcie_host_bytes_per_s = 0;
  double pcie_host_ring_bytes_per_s = 0;
  double pcie_host_all_to_all_bytes_per_s = 0;
  // GPU to host memory, per GPU per direction: PCIe x16 on HGX and PCIe servers, NVLink-C2C
  // on Grace superchips (docs/hardware.md, "Host link"). Activation offloading copies over it
  // (Layout::offload_layers); 0: not described, and offloading is refused.
  double host_link_bytes_per_s = 0;

  // Scale-out bandwidth of one GPU when every GPU of its node sends at once.
  double net_bytes_per_s() const { return nic_bytes_per_s * nics_per_node / gpus_per_node; }
  // Whether a "node" is smaller than the NVLink domain (NVL72 trays).
  bool multi_node_domain() const { return nvlink_domain > gpus_per_node; }
  // Whether the scale-up domain is PCIe switches joined through the host.
  bool pcie_switches() const {
    return scale_up == LinkClass::kPcie && pcie_gpus_per_switch > 0 && pcie_gpus_per_switch < nvlink_domain &&
           pcie_host_bytes_per_s > 0 && pcie_host_ring_bytes_per_s > 0;
  }
};

}  // namespace paratune
