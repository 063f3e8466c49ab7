#include "cost/collectives.h"

#include <gtest/gtest.h>

#include "hardware/hardware_catalog.h"

namespace paratune {
namespace {

// 1024 H100 in HGX nodes of 8.
ClusterSpec H100() { return HardwareCatalog::BuiltIn().Cluster("H100", 1024); }

// Ring all-reduce (Thakur et al. 2005; nccl-tests PERFORMANCE.md): 2(n-1)/n * S / busbw +
// 2(n-1) latency steps.
TEST(Collectives, RingAllReduceInsideNode) {
  const ClusterSpec c = H100();
  const GpuSpec& g = c.gpu;
  const Fabric& f = c.fabric;
  const GroupLinks l = PlaceGroup(c, {8, 1});
  EXPECT_FALSE(l.crosses_domain);
  const double bw = f.nvlink_bytes_per_s * g.calibration.nvlink;
  EXPECT_DOUBLE_EQ(l.bus_bytes_per_s, bw);
  const double S = 1e9;
  EXPECT_DOUBLE_EQ(AllReduceTime(S, 8, l), 2.0 * 7 / 8 * S / bw + 14 * f.nvlink_latency_s);
  EXPECT_DOUBLE_EQ(AllGatherTime(S, 8, l), 7.0 / 8 * S / bw + 7 * f.nvlink_latency_s);
  EXPECT_DOUBLE_EQ(ReduceScatterTime(S, 8, l), AllGatherTime(S, 8, l));
  EXPECT_DOUBLE_EQ(AllReduceTime(S, 1, l), 0);
}

// On B200 every all-gather, reduce-scatter and all-reduce also pays NCCL's fixed cost per call
// (SimuMax's fit: 24.3 us beside 8.6 us a step), inside the NVLink domain and across it; a
// group of one pays nothing. A Llama-3-70B TP collective (4096 x 8192 x 2 bytes) over 8 GPUs:
// 7/8 x 67.1 MB at the calibrated rate plus 7 x 8.6 + 24.3 = 84.5 us.
TEST(Collectives, CallLatencyOncePerCollective) {
  const ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("B200", 16);
  const Fabric& f = c.fabric;
  const GroupLinks l = PlaceGroup(c, {8, 1});
  EXPECT_DOUBLE_EQ(l.call_latency_s, 24.3e-6);
  const double S = 4096.0 * 8192 * 2, bw = f.nvlink_bytes_per_s * c.gpu.calibration.nvlink;
  EXPECT_DOUBLE_EQ(AllGatherTime(S, 8, l), 7.0 / 8 * S / bw + 84.5e-6);
  EXPECT_DOUBLE_EQ(AllReduceTime(S, 8, l), 2.0 * 7 / 8 * S / bw + 14 * 8.6e-6 + 24.3e-6);
  const GroupLinks across = PlaceGroup(c, {2, 8});
  EXPECT_TRUE(across.crosses_domain);
  EXPECT_DOUBLE_EQ(ReduceScatterTime(S, 2, across), 0.5 * S / across.bus_bytes_per_s + f.net_latency_s + 24.3e-6);
  EXPECT_DOUBLE_EQ(PlaceGroup(c, {1, 1}).call_latency_s, 0.0);
  EXPECT_DOUBLE_EQ(PlaceGroup(HardwareCatalog::BuiltIn().Cluster("H100", 8), {8, 1}).call_latency_s, 0.0);
}

// A DP group with one member per node (stride 8) rides each GPU's own NIC; one with all 8
// GPUs of each node (stride 1) spreads the inter-node share over 8 NICs, capped by NVLink.
TEST(Collectives, CrossNodeBandwidth) {
  const ClusterSpec c = H100();
  const GpuSpec& g = c.gpu;
  const Fabric& f = c.fabric;
  const double net = f.net_bytes_per_s() * g.calibration.net;
  const double nvl = f.nvlink_bytes_per_s * g.calibration.nvlink;
  const GroupLinks one = PlaceGroup(c, {16, 8});
  EXPECT_TRUE(one.crosses_domain);
  EXPECT_DOUBLE_EQ(one.bus_bytes_per_s, net);
  EXPECT_DOUBLE_EQ(one.latency_s, f.net_latency_s);
  const GroupLinks full = PlaceGroup(c, {32, 1});
  EXPECT_DOUBLE_EQ(full.bus_bytes_per_s, std::min(nvl, 8 * net));
  const GroupLinks half = PlaceGroup(c, {16, 2});
  EXPECT_EQ(half.per_domain, 4);
  EXPECT_DOUBLE_EQ(half.bus_bytes_per_s, std::min(nvl, 4 * net));
}

// All-to-all over 16 ranks, 8 per node: each rank sends 7/16 of its buffer over NVLink and
// 8/16 over its NIC, concurrently; the NIC part dominates.
TEST(Collectives, AllToAllSplitsIntraAndInter) {
  const ClusterSpec c = H100();
  const GpuSpec& g = c.gpu;
  const Fabric& f = c.fabric;
  const GroupLinks l = PlaceGroup(c, {16, 1});
  const double S = 256e6;
  const double inter = 8.0 / 16 * S / (f.net_bytes_per_s() * g.calibration.net);
  EXPECT_DOUBLE_EQ(AllToAllTime(S, 16, l), inter + 15 * f.net_latency_s);
  const GroupLinks in = PlaceGroup(c, {8, 1});
  EXPECT_DOUBLE_EQ(AllToAllTime(S, 8, in),
                   7.0 / 8 * S / (f.nvlink_bytes_per_s * g.calibration.nvlink) + 7 * f.nvlink_latency_s);
}

// All-to-all over the 8 GPUs of a PCIe node of two 4-GPU switches: each rank sends 3/8 of its
// buffer to its switch's peers at the in-switch rate and 4/8 through the host, whose all-to-all
// rate of 18.9 GB/s the switch's 4 GPUs share; the host part dominates. It reproduces SimuMax's
// measured 8-GPU all-to-all, 7/8 of the buffer at 0.2754 x 30 GB/s (configs/system/a100_pcie.json).
TEST(Collectives, AllToAllThroughThePcieHost) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const ClusterSpec c = hw.Cluster("A100-PCIe-80GB", 8);
  const GroupLinks l = PlaceGroup(c, {8, 1});
  const double S = 1e9;
  EXPECT_DOUBLE_EQ(AllToAllTime(S, 8, l), 4.0 / 8 * S / 4.725e9 + 7 * c.fabric.nvlink_latency_s);
  const double measured_s = 7.0 / 8 * S / (0.2754 * 30e9);
  EXPECT_NEAR(AllToAllTime(S, 8, l) - 7 * c.fabric.nvlink_latency_s, measured_s, 0.001 * measured_s);
  // Four ranks inside one switch: only the in-switch rate.
  const GroupLinks in = PlaceGroup(c, {4, 1});
  EXPECT_DOUBLE_EQ(AllToAllTime(S, 4, in),
                   3.0 / 4 * S / (32e9 * c.gpu.calibration.pcie) + 3 * c.fabric.nvlink_latency_s);
}

// NCCL runs all-gather and reduce-scatter as rings, so their latency term grows with the group
// (n - 1 steps); all-reduce beyond a node uses trees: 2*ceil(log2 n) steps.
TEST(Collectives, LatencyTermsAtScale) {
  const ClusterSpec c = H100();
  const Fabric& f = c.fabric;
  const GroupLinks l = PlaceGroup(c, {1024, 8});
  EXPECT_DOUBLE_EQ(AllGatherTime(8, 1024, l) - 1023.0 / 1024 * 8 / l.bus_bytes_per_s, 1023 * f.net_latency_s);
  EXPECT_DOUBLE_EQ(AllReduceTime(8, 1024, l) - 2 * 1023.0 / 1024 * 8 / l.bus_bytes_per_s, 20 * f.net_latency_s);
}

// A spine oversubscribed 4:1 above leaves of 4 nodes divides the NIC share of groups that span
// more than one leaf; groups inside a leaf keep the full NIC bandwidth.
TEST(Collectives, SpineOversubscription) {
  ClusterSpec c = H100();
  c.fabric.nodes_per_leaf = 4;
  c.fabric.spine_oversubscription = 4;
  const double net = c.fabric.net_bytes_per_s() * c.gpu.calibration.net;
  const GroupLinks in_leaf = PlaceGroup(c, {4, 8});  // 4 nodes
  EXPECT_EQ(in_leaf.link, LinkClass::kLeaf);
  EXPECT_DOUBLE_EQ(in_leaf.bus_bytes_per_s, net);
  const GroupLinks spine = PlaceGroup(c, {8, 8});  // 8 nodes: two leaves
  EXPECT_EQ(spine.link, LinkClass::kSpine);
  EXPECT_DOUBLE_EQ(spine.bus_bytes_per_s, net / 4);
  EXPECT_EQ(PlaceGroup(c, {8, 1}).link, LinkClass::kNvlink);
  EXPECT_EQ(PlaceSendRecv(c, 64).link, LinkClass::kSpine);
  EXPECT_EQ(PlaceSendRecv(c, 8).link, LinkClass::kLeaf);
}

TEST(Collectives, SendRecv) {
  const ClusterSpec c = H100();
  const GpuSpec& g = c.gpu;
  const Fabric& f = c.fabric;
  EXPECT_DOUBLE_EQ(SendRecvTime(1e8, PlaceSendRecv(c, 1)),
                   1e8 / (f.nvlink_bytes_per_s * g.calibration.nvlink) + f.nvlink_latency_s);
  EXPECT_DOUBLE_EQ(SendRecvTime(1e8, PlaceSendRecv(c, 64)),
                   1e8 / (f.net_bytes_per_s() * g.calibration.net) + f.net_latency_s);
}

}  // namespace
}  // namespace paratune
