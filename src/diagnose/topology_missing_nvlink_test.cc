#include <gtest/gtest.h>

#include <functional>

#include "diagnose/rules.h"
#include "hardware/hardware_catalog.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// A tab-separated `nvidia-smi topo -m` matrix of `g` GPUs and `nics` NICs; `link(i, j)` gives
// each off-diagonal cell (devices numbered GPUs first, then NICs).
std::string Matrix(int g, int nics, const std::function<std::string(int, int)>& link) {
  const int d = g + nics;
  auto name = [&](int i) { return i < g ? "GPU" + std::to_string(i) : "NIC" + std::to_string(i - g); };
  std::string s;
  for (int j = 0; j < d; ++j) s += "\t" + name(j);
  s += "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n";
  for (int i = 0; i < d; ++i) {
    s += name(i);
    for (int j = 0; j < d; ++j) s += "\t" + (i == j ? std::string(" X ") : link(i, j));
    if (i < g) s += i < g / 2 ? "\t0-51\t0\t\tN/A" : "\t52-103\t1\t\tN/A";
    s += "\n";
  }
  s += "\nLegend:\n\n  X    = Self\n  NV#  = Connection traversing a bonded set of # NVLinks\n";
  if (nics) {
    s += "\nNIC Legend:\n\n";
    for (int k = 0; k < nics; ++k) s += "  NIC" + std::to_string(k) + ": mlx5_" + std::to_string(k) + "\n";
  }
  return s;
}

// GPU i and NIC i behind one PCIe switch; the other NICs across the socket or the host bridges.
std::string RailNic(int g, int i, int j) {
  const int gpu = i < g ? i : j, nic = (i < g ? j : i) - g;
  if (i >= g && j >= g) return "SYS";
  if (gpu == nic) return "PIX";
  return (gpu < g / 2) == (nic < g / 2) ? "NODE" : "SYS";
}

std::vector<Finding> CheckTopology(const std::string& text, const DiagnoseInputs& base = {}) {
  DiagnoseInputs in = base;
  in.topologies.push_back(ParseTopologyMatrix(text, "topo.txt"));
  std::vector<Finding> out;
  MakeTopologyMissingNvlinkRule()->Check(in, &out);
  return out;
}

bool AnyWarning(const std::vector<Finding>& f) {
  for (const auto& x : f)
    if (x.severity != Severity::kInfo) return true;
  return false;
}

TEST(TopologyMissingNvlink, FullNv18WithRailNicsIsAllClear) {
  const auto out =
      CheckTopology(Matrix(8, 8, [](int i, int j) { return i < 8 && j < 8 ? std::string("NV18") : RailNic(8, i, j); }));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kInfo);
  EXPECT_EQ(out[0].title, "Full NVLink: all 28 pairs of the 8 GPUs NV18");
}

TEST(TopologyMissingNvlink, OneSysPairIsCritical) {
  const auto out = CheckTopology(Matrix(8, 8, [](int i, int j) {
    if (i < 8 && j < 8) return (i == 2 && j == 5) || (i == 5 && j == 2) ? std::string("SYS") : std::string("NV18");
    return RailNic(8, i, j);
  }));
  ASSERT_EQ(out.size(), 1u);
  const Finding& f = out[0];
  EXPECT_EQ(f.rule, "topology_missing_nvlink");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.where.gpu_pairs, (std::vector<std::pair<int, int>>{{2, 5}}));
  EXPECT_TRUE(f.where.gpus.empty());
  EXPECT_EQ(f.where.lines, (std::vector<std::string>{"topo.txt:4"}));  // GPU2's row
  EXPECT_EQ(f.title, "1 of 28 GPU pairs without NVLink (GPU2-GPU5 SYS)");
}

TEST(TopologyMissingNvlink, AGpuThatLostEveryNvlink) {
  // GPU6 reaches its peers over PCIe only: no GPU reaches all 7 others, 6 of them reach 6.
  const auto out = CheckTopology(
      Matrix(8, 0, [](int i, int j) { return i == 6 || j == 6 ? std::string("PXB") : std::string("NV12"); }));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kCritical);
  EXPECT_EQ(out[0].where.gpu_pairs.size(), 7u);
  EXPECT_EQ(out[0].where.gpus, (std::vector<int>{6}));
}

TEST(TopologyMissingNvlink, AGpuWithFewerNvlinks) {
  const auto out = CheckTopology(
      Matrix(8, 0, [](int i, int j) { return i == 3 || j == 3 ? std::string("NV17") : std::string("NV18"); }));
  ASSERT_EQ(out.size(), 1u);
  const Finding& f = out[0];
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_EQ(f.where.gpus, (std::vector<int>{3}));
  EXPECT_TRUE(f.where.gpu_pairs.empty());
  EXPECT_EQ(f.title, "Fewer NVLinks than the NV18 of the other pairs: GPU3 NV17");
}

TEST(TopologyMissingNvlink, OneNarrowPair) {
  const auto out = CheckTopology(Matrix(4, 0, [](int i, int j) {
    return (i == 0 && j == 1) || (i == 1 && j == 0) ? std::string("NV2") : std::string("NV4");
  }));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].where.gpus.empty());
  EXPECT_EQ(out[0].where.gpu_pairs, (std::vector<std::pair<int, int>>{{0, 1}}));
}

TEST(TopologyMissingNvlink, PartialMeshesAndPcieServersAreInfo) {
  // DGX-1 hybrid cube mesh (each V100 reaches 4 of 7; NV1/NV2 mixed, SYS elsewhere).
  auto dgx1 = [](int i, int j) {
    const int a = std::min(i, j), b = std::max(i, j);
    const bool same_quad = a / 4 == b / 4;
    if (same_quad) return (b - a == 2) ? std::string("NV1") : std::string("NV2");
    return b - a == 4 ? std::string("NV2") : std::string("SYS");
  };
  auto out = CheckTopology(Matrix(8, 0, dgx1));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kInfo);
  out = CheckTopology(Matrix(4, 0, [](int, int) { return std::string("PHB"); }));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kInfo);
  EXPECT_EQ(out[0].title, "4 GPUs without NVLink (PCIe only)");
  // ... unless the plan says the node is an NVLink domain.
  DiagnoseInputs planned;
  PlannedRun p;
  p.cluster = HardwareCatalog::BuiltIn().Cluster("H100", 8);
  planned.plan = p;
  out = CheckTopology(Matrix(4, 0, [](int, int) { return std::string("PHB"); }), planned);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kCritical);
  EXPECT_EQ(out[0].where.gpu_pairs.size(), 6u);
}

TEST(TopologyMissingNvlink, GpuWhoseNearestNicIsAcrossTheSocket) {
  // NIC5 is plugged on the other socket: GPU5 reaches no NIC closer than NODE/SYS.
  const auto out = CheckTopology(Matrix(8, 8, [](int i, int j) {
    if (i < 8 && j < 8) return std::string("NV18");
    const int gpu = i < 8 ? i : j, nic = (i < 8 ? j : i) - 8;
    if (i >= 8 && j >= 8) return std::string("SYS");
    if (nic == 5) return gpu < 4 ? std::string("PXB") : std::string("SYS");
    if (gpu == 5) return nic < 4 ? std::string("SYS") : std::string("NODE");
    return RailNic(8, i, j);
  }));
  ASSERT_EQ(out.size(), 2u);  // the NVLink all-clear and the NIC warning
  const Finding* nic = out[0].severity == Severity::kWarning ? &out[0] : &out[1];
  EXPECT_EQ(nic->severity, Severity::kWarning);
  EXPECT_EQ(nic->where.gpus, (std::vector<int>{5}));
  EXPECT_CONTAINS(nic->title, "GPU5 -> NIC4 (mlx5_4) NODE");
}

TEST(TopologyMissingNvlink, FewerNicsThanGpusIsByDesign) {
  // Four NICs for eight GPUs (NIC k next to GPU 2k): NCCL's PXN forwards the others over NVLink.
  const auto out = CheckTopology(Matrix(8, 4, [](int i, int j) {
    if (i < 8 && j < 8) return std::string("NV18");
    if (i >= 8 && j >= 8) return std::string("SYS");
    const int gpu = i < 8 ? i : j, nic = (i < 8 ? j : i) - 8;
    return gpu == 2 * nic ? std::string("PIX") : std::string("SYS");
  }));
  EXPECT_FALSE(AnyWarning(out));
}

TEST(TopologyMissingNvlink, SharedMatricesAreFullNvlink) {
  for (const char* file : {"traces/nvidia_smi_topo/topo_8xA100_NV12_ml-engineering.txt",
                           "traces/nvidia_smi_topo/topo_8xH100_NV18_ml-engineering.txt"}) {
    PARATUNE_SHARED_OR_SKIP(path, file);
    DiagnoseInputs in;
    in.topologies.push_back(ReadTopologyMatrix(path));
    std::vector<Finding> out;
    MakeTopologyMissingNvlinkRule()->Check(in, &out);
    ASSERT_EQ(out.size(), 1u) << file;
    EXPECT_EQ(out[0].severity, Severity::kInfo);
    EXPECT_CONTAINS(out[0].title, "Full NVLink: all 28 pairs of the 8 GPUs NV");
    EXPECT_CONTAINS(out[0].title, std::string(file).find("A100") != std::string::npos ? "NV12" : "NV18");
  }
}

}  // namespace
}  // namespace paratune
