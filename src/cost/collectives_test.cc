#include "cost/collectives.h"

#include <gtest/gtest.h>

#include "hardware/hardware_catalog.h"

namespace paratune {
namespace {

GpuSpec H100() { return HardwareCatalog::BuiltIn().Find("H100"); }

// Ring all-reduce (Thakur et al. 2005; nccl-tests PERFORMANCE.md): 2(n-1)/n * S / busbw +
// 2(n-1) latency steps.
TEST(Collectives, RingAllReduceInsideNode) {
  const GpuSpec g = H100();
  const GroupLinks l = LinksFor(g, {8, 1});
  EXPECT_FALSE(l.crosses_domain);
  const double bw = g.nvlink_bytes_per_s * g.calibration.nvlink;
  EXPECT_DOUBLE_EQ(l.bus_bytes_per_s, bw);
  const double S = 1e9;
  EXPECT_DOUBLE_EQ(AllReduceTime(S, 8, l), 2.0 * 7 / 8 * S / bw + 14 * g.nvlink_latency_s);
  EXPECT_DOUBLE_EQ(AllGatherTime(S, 8, l), 7.0 / 8 * S / bw + 7 * g.nvlink_latency_s);
  EXPECT_DOUBLE_EQ(ReduceScatterTime(S, 8, l), AllGatherTime(S, 8, l));
  EXPECT_DOUBLE_EQ(AllReduceTime(S, 1, l), 0);
}

// A DP group with one member per node (stride 8) rides each GPU's own NIC; one with all 8
// GPUs of each node (stride 1) spreads the inter-node share over 8 NICs, capped by NVLink.
TEST(Collectives, CrossNodeBandwidth) {
  const GpuSpec g = H100();
  const double net = g.net_bytes_per_s * g.calibration.net;
  const double nvl = g.nvlink_bytes_per_s * g.calibration.nvlink;
  const GroupLinks one = LinksFor(g, {16, 8});
  EXPECT_TRUE(one.crosses_domain);
  EXPECT_DOUBLE_EQ(one.bus_bytes_per_s, net);
  EXPECT_DOUBLE_EQ(one.latency_s, g.net_latency_s);
  const GroupLinks full = LinksFor(g, {32, 1});
  EXPECT_DOUBLE_EQ(full.bus_bytes_per_s, std::min(nvl, 8 * net));
  const GroupLinks half = LinksFor(g, {16, 2});
  EXPECT_EQ(half.per_domain, 4);
  EXPECT_DOUBLE_EQ(half.bus_bytes_per_s, std::min(nvl, 4 * net));
}

// All-to-all over 16 ranks, 8 per node: each rank sends 7/16 of its buffer over NVLink and
// 8/16 over its NIC, concurrently; the NIC part dominates.
TEST(Collectives, AllToAllSplitsIntraAndInter) {
  const GpuSpec g = H100();
  const GroupLinks l = LinksFor(g, {16, 1});
  const double S = 256e6;
  const double inter = 8.0 / 16 * S / (g.net_bytes_per_s * g.calibration.net);
  EXPECT_DOUBLE_EQ(AllToAllTime(S, 16, l), inter + 15 * g.net_latency_s);
  const GroupLinks in = LinksFor(g, {8, 1});
  EXPECT_DOUBLE_EQ(AllToAllTime(S, 8, in), 7.0 / 8 * S / (g.nvlink_bytes_per_s * g.calibration.nvlink) +
                                              7 * g.nvlink_latency_s);
}

// NCCL runs all-gather and reduce-scatter as rings, so their latency term grows with the group
// (n - 1 steps); all-reduce beyond a node uses trees: 2*ceil(log2 n) steps.
TEST(Collectives, LatencyTermsAtScale) {
  const GpuSpec g = H100();
  const GroupLinks l = LinksFor(g, {1024, 8});
  EXPECT_DOUBLE_EQ(AllGatherTime(8, 1024, l) - 1023.0 / 1024 * 8 / l.bus_bytes_per_s, 1023 * g.net_latency_s);
  EXPECT_DOUBLE_EQ(AllReduceTime(8, 1024, l) - 2 * 1023.0 / 1024 * 8 / l.bus_bytes_per_s, 20 * g.net_latency_s);
}

TEST(Collectives, SendRecv) {
  const GpuSpec g = H100();
  EXPECT_DOUBLE_EQ(SendRecvTime(1e8, g, 1), 1e8 / (g.nvlink_bytes_per_s * g.calibration.nvlink) + g.nvlink_latency_s);
  EXPECT_DOUBLE_EQ(SendRecvTime(1e8, g, 64), 1e8 / (g.net_bytes_per_s * g.calibration.net) + g.net_latency_s);
}

}  // namespace
}  // namespace paratune
