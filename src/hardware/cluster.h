// ClusterSpec: the machine a job runs on: GPU chips (GpuSpec) wired by a fabric (Fabric), and
// how many GPUs the job has. PlaceGroup is the one placement function: which links a group of
// ranks uses, and what bandwidth and latency its collectives see there.
//
// Ranks are numbered in Megatron-Core's order (tp fastest, then cp, ep/dp, pp), consecutive
// ranks filling a node, nodes filling an NVLink domain and domains filling a leaf switch, so a
// group is described by its size and the stride between its members.
#pragma once

#include <string>

#include "hardware/fabric.h"
#include "hardware/gpu_spec.h"
#include "util/enum_names.h"

namespace paratune {

struct ClusterSpec {
  GpuSpec gpu;
  Fabric fabric;
  int gpus = 0;  // world size

  int nodes() const;
  int nvlink_domains() const;
  // "4 nodes of 8", or for NVL72 "18 trays of 4 GPUs in 1 NVLink domain of 72".
  std::string Describe() const;
};

// A group of `size` ranks whose members are `stride` ranks apart.
struct RankGroup {
  int size = 1;
  int stride = 1;
};

// The links a group's collectives run over.
struct GroupLinks {
  LinkClass link = LinkClass::kNone;
  double bus_bytes_per_s = 0;     // achievable bus bandwidth (bandwidth x NCCL efficiency)
  double latency_s = 0;           // per ring step
  double call_latency_s = 0;      // once per all-gather, reduce-scatter or all-reduce
  bool crosses_domain = false;    // the group spans more than one NVLink domain
  int per_domain = 1;             // members inside one NVLink domain
  double nvlink_bytes_per_s = 0;  // effective, for the intra-domain part of all-to-all
  double net_bytes_per_s = 0;     // effective, for the inter-domain part (after oversubscription)
  // PCIe switches (Fabric::pcie_switches): members under one switch, and each member's share
  // of the host crossing when every GPU of a switch sends across at once (all-to-all:
  // Fabric::pcie_host_all_to_all_bytes_per_s over the switch's GPUs).
  int per_switch = 0;  // 0: the domain is not split into switches
  double host_bytes_per_s = 0;
};

// Inside one NVLink domain the group gets the domain's scale-up link (NVLink, or PCIe on a PCIe
// fabric; GroupLinks::link says which) x calibration. Across domains, k members per
// domain each drive their own NIC (rail-optimised fabric), so a ring's inter-domain share is
// carried by k NICs in parallel: bus bandwidth min(NVLink, k x NIC) (NCCL rings over multiple
// channels; nccl-tests doc/PERFORMANCE.md). A group spanning more nodes than one leaf switch
// holds crosses the spine, whose oversubscription divides the NIC share.
// On a PCIe domain of switches, a ring whose members sit under different switches crosses the
// host: its bus bandwidth is min(in-switch share, one ring's host rate, the host rate / the
// groups of its shape crossing at once), as every group of a kind runs its collective together.
GroupLinks PlaceGroup(const ClusterSpec& c, const RankGroup& g);

// The link of a point-to-point transfer between ranks `stride` apart (one pipeline hop).
GroupLinks PlaceSendRecv(const ClusterSpec& c, int stride);

}  // namespace paratune
