// PortTimes: how long each port of one GPU is busy with collectives. A GPU has a scale-up port
// (NVLink, or PCIe on machines without it) used by groups inside one NVLink domain, and a
// scale-out port (its share of the node's NICs) used by groups that cross domains; traffic that
// leaves its leaf switch also holds the GPU's share of the oversubscribed spine uplinks, counted
// as a third link. A collective occupies the one port that bounds it (PlaceGroup's bottleneck)
// for its whole duration: the NVLink hops of a ring that crosses domains run beside its NIC hops
// and are not counted. docs/cost-model.md, "Link occupancy".
#pragma once

#include <array>

#include "hardware/cluster.h"
#include "util/enum_names.h"

namespace paratune {

enum class Port { kScaleUp, kScaleOut, kSpine };
inline constexpr int kPorts = 3;
inline constexpr EnumNames<Port, kPorts> kPortNames{
    {{{Port::kScaleUp, "scale_up"}, {Port::kScaleOut, "scale_out"}, {Port::kSpine, "spine"}}}, kPorts};
inline const char* PortName(Port p) { return kPortNames.Name(p); }

struct PortTimes {
  std::array<double, kPorts> s{};
  double& operator[](Port p) { return s[static_cast<size_t>(p)]; }
  double operator[](Port p) const { return s[static_cast<size_t>(p)]; }
  PortTimes& operator+=(const PortTimes& o);
  PortTimes operator*(double k) const;
};

// The port a group's collectives (or a point-to-point transfer) hold.
Port PortOf(const GroupLinks& links);

// Adds `seconds` of a collective placed on `links` to the ports it holds: its port, and the
// spine when it leaves its leaf switch.
void AddPortTime(PortTimes& t, const GroupLinks& links, double seconds);

}  // namespace paratune
