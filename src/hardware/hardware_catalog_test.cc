// Tests of the built-in GPU catalog (unit conversion, calibration) and of merging user TOML.
#include "hardware/hardware_catalog.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <stdexcept>
#include <set>
#include <string>
#include <toml++/toml.h>

#include "util/error.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// The message of merging `toml` (named "user.toml") into the built-in catalog.
std::string MergeError(const std::string& toml) {
  HardwareCatalog hw = HardwareCatalog::BuiltIn();
  return InputErrorOf([&] { hw.Merge(toml, "user.toml"); });
}

// Calibration values are refit from data (docs/validation.md), so the tests read the expected
// numbers from data/calibration.toml instead of repeating them.
Calibration CalibrationFromFile(const std::string& generation) {
  const toml::table doc = toml::parse_file(std::string(PARATUNE_SOURCE_DIR) + "/data/calibration.toml");
  const toml::table* t = doc["calibration"][generation].as_table();
  if (!t) throw std::runtime_error("data/calibration.toml has no [calibration." + generation + "]");
  Calibration c;
  c.gemm_bf16 = (*t)["gemm_bf16"].value_or(c.gemm_bf16);
  c.gemm_fp8 = (*t)["gemm_fp8"].value_or(c.gemm_fp8);
  c.gemm_fp4 = (*t)["gemm_fp4"].value_or(c.gemm_fp4);
  c.attention = (*t)["attention"].value_or(c.attention);
  c.hbm = (*t)["hbm"].value_or(c.hbm);
  c.nvlink = (*t)["nvlink"].value_or(c.nvlink);
  c.net = (*t)["net"].value_or(c.net);
  return c;
}

void ExpectSameCalibration(const Calibration& a, const Calibration& b, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_DOUBLE_EQ(a.gemm_bf16, b.gemm_bf16);
  EXPECT_DOUBLE_EQ(a.gemm_fp8, b.gemm_fp8);
  EXPECT_DOUBLE_EQ(a.gemm_fp4, b.gemm_fp4);
  EXPECT_DOUBLE_EQ(a.attention, b.attention);
  EXPECT_DOUBLE_EQ(a.hbm, b.hbm);
  EXPECT_DOUBLE_EQ(a.nvlink, b.nvlink);
  EXPECT_DOUBLE_EQ(a.net, b.net);
}

// A complete new-GPU table; `drop` removes the line starting with that key.
std::string NewGpu(const std::string& drop = "") {
  const char* lines[] = {"generation = \"hopper\"", "bf16_dense_tflops = 1000.0", "hbm_gb = 100.0",
                         "hbm_tb_per_s = 4.0",      "gpus_per_node = 8",          "nvlink_domain = 8",
                         "nvlink_gb_per_s = 450.0", "net_gb_per_s = 50.0"};
  std::string s = "[X200]\n";
  for (const char* l : lines)
    if (drop.empty() || std::string(l).rfind(drop + " ", 0) != 0) s += std::string(l) + "\n";
  return s;
}

TEST(HardwareCatalog, BuiltInHasAllGpus) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  std::set<std::string> names;
  for (const GpuSpec* g : hw.All()) names.insert(g->name);
  const std::set<std::string> expected = {"B300",      "B200",      "B200-750W", "GB200",          "GB300",
                                          "H200",      "H100",      "H800",      "H100-96GB-500W", "H20",
                                          "H100-PCIe", "A100-80GB", "A100-40GB", "A100-PCIe-80GB"};
  EXPECT_EQ(names, expected);
  for (const std::string& n : expected) EXPECT_EQ(hw.Find(n).name, n);
}

// The GPU names of the validation data (../shared/validation/README.md) find their entries, by
// name or alias.
TEST(HardwareCatalog, ValidationGpuNamesAndAliases) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  EXPECT_EQ(hw.Find("H100-SXM").name, "H100");
  EXPECT_EQ(hw.Find("h100-sxm5-80gb").name, "H100");
  EXPECT_EQ(hw.Find("A100-SXM4-80GB").name, "A100-80GB");
  for (const char* n : {"A100-40GB", "A100-80GB", "B200", "GB200", "A100-PCIe-80GB", "H100-PCIe", "H100-96GB-500W",
                        "H200", "H800", "H20", "B300", "GB300"})
    EXPECT_NO_THROW(hw.Find(n)) << n;
  EXPECT_THROW(hw.Find("TPUv5"), InputError);
}

// PCIe servers: an 8-GPU scale-up domain whose link is PCIe (per direction: A100 PCIe Gen4 x16
// 64/2 = 32 GB/s, H100 PCIe Gen5 128/2 = 64 GB/s); groups inside it use the PCIe link class.
TEST(HardwareCatalog, PcieFabrics) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const Fabric& a = hw.FindFabric("A100-PCIe-80GB");
  EXPECT_EQ(a.scale_up, LinkClass::kPcie);
  EXPECT_EQ(a.nvlink_domain, 8);
  EXPECT_DOUBLE_EQ(a.nvlink_bytes_per_s, 32e9);
  EXPECT_DOUBLE_EQ(hw.FindFabric("H100-PCIe").nvlink_bytes_per_s, 64e9);
  EXPECT_EQ(hw.FindFabric("H100").scale_up, LinkClass::kNvlink);
  const ClusterSpec c = hw.Cluster("A100-PCIe-80GB", 16);
  const GroupLinks tp = PlaceGroup(c, {4, 1});
  EXPECT_EQ(tp.link, LinkClass::kPcie);
  EXPECT_EQ(PlaceGroup(c, {8, 1}).link, LinkClass::kPcie);
  // PCIe links take their own calibrated share (NCCL over PCIe switches), not NVLink's.
  EXPECT_DOUBLE_EQ(tp.bus_bytes_per_s, 32e9 * c.gpu.calibration.pcie);
  EXPECT_NE(c.gpu.calibration.pcie, c.gpu.calibration.nvlink);
  EXPECT_DOUBLE_EQ(PlaceGroup(hw.Cluster("A100-80GB", 16), {8, 1}).bus_bytes_per_s,
                   hw.FindFabric("A100-80GB").nvlink_bytes_per_s * c.gpu.calibration.nvlink);
  EXPECT_EQ(PlaceSendRecv(c, 1).link, LinkClass::kPcie);
  EXPECT_EQ(PlaceGroup(c, {2, 8}).link, LinkClass::kLeaf);
  // The H100 96GB (Grand Teton) estimate and the H20's published figures.
  const GpuSpec& gt = hw.Find("H100-96GB-500W");
  EXPECT_DOUBLE_EQ(gt.bf16_flops, 912.5e12);
  EXPECT_DOUBLE_EQ(gt.hbm_bytes_per_s, 2.4e12);
  EXPECT_DOUBLE_EQ(gt.tdp_w, 500);
  // The power-limited B200 (torchao's MX table): between the B100 (700 W) and B200 (1,000 W)
  // datasheet peaks, linear in the limit: 1.75 + 0.5 x 50/300 PF BF16.
  const GpuSpec& b750 = hw.Find("B200-750W");
  EXPECT_NEAR(b750.bf16_flops, (1.75 + 0.5 * 50 / 300) * 1e15, 0.1e12);
  EXPECT_NEAR(b750.fp8_flops, 2 * b750.bf16_flops, 0.2e12);
  EXPECT_DOUBLE_EQ(b750.hbm_bytes_per_s, hw.Find("B200").hbm_bytes_per_s);
  EXPECT_DOUBLE_EQ(b750.tdp_w, 750);
  const GpuSpec& h20 = hw.Find("H20");
  EXPECT_DOUBLE_EQ(h20.bf16_flops, 148e12);
  EXPECT_DOUBLE_EQ(h20.fp8_flops, 296e12);
  EXPECT_DOUBLE_EQ(h20.hbm_bytes_per_s, 4.0e12);
  EXPECT_DOUBLE_EQ(hw.FindFabric("H20").nvlink_bytes_per_s, 450e9);
  // New GPUs take their generation's calibration.
  ExpectSameCalibration(hw.Find("A100-PCIe-80GB").calibration, hw.Find("A100-80GB").calibration, "ampere");
  ExpectSameCalibration(h20.calibration, hw.Find("H100").calibration, "hopper");
}

// The A100 PCIe node of the SimuMax runs: two PCIe switches of 4 GPUs joined through the host
// (configs/system/a100_pcie.json @3005b17c). A group inside a switch gets the PCIe link x the
// calibrated share; a ring across the switches at most one ring's host rate (12.4 GB/s), and
// the groups crossing at once share the host's 15.2 GB/s: tp2 dp4 (two DP groups of 4) 7.6,
// tp4 dp2 (four of 2) 3.8 GB/s each, as SimuMax measures 7.0-7.65 and 3.9-4.0.
TEST(HardwareCatalog, PcieSwitchesShareTheHost) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const Fabric& f = hw.FindFabric("A100-PCIe-80GB");
  ASSERT_TRUE(f.pcie_switches());
  EXPECT_EQ(f.pcie_gpus_per_switch, 4);
  const ClusterSpec c = hw.Cluster("A100-PCIe-80GB", 8);
  const double in_switch = 32e9 * c.gpu.calibration.pcie;
  ASSERT_GT(in_switch, 12.4e9);
  EXPECT_DOUBLE_EQ(PlaceGroup(c, {2, 1}).bus_bytes_per_s, in_switch);
  EXPECT_DOUBLE_EQ(PlaceGroup(c, {2, 2}).bus_bytes_per_s, in_switch);  // span 4: one switch
  EXPECT_DOUBLE_EQ(PlaceGroup(c, {8, 1}).bus_bytes_per_s, 12.4e9);
  EXPECT_DOUBLE_EQ(PlaceGroup(c, {4, 2}).bus_bytes_per_s, 7.6e9);
  EXPECT_DOUBLE_EQ(PlaceGroup(c, {2, 4}).bus_bytes_per_s, 3.8e9);
  // Pipeline sends of a stage of 4 into the other switch: 4 at once.
  EXPECT_DOUBLE_EQ(PlaceSendRecv(c, 4).bus_bytes_per_s, 3.8e9);
  EXPECT_DOUBLE_EQ(PlaceSendRecv(c, 1).bus_bytes_per_s, 12.4e9);
  // All-to-all over 8: 3 peers in the switch, 4 through the host at 18.9 / 4 GB/s per GPU
  // (pcie_host_all_to_all_gb_per_s); without that field, the rings' 15.2 / 4.
  const GroupLinks ep = PlaceGroup(c, {8, 1});
  EXPECT_EQ(ep.per_switch, 4);
  EXPECT_DOUBLE_EQ(ep.host_bytes_per_s, 18.9e9 / 4);
  ClusterSpec rings_only = c;
  rings_only.fabric.pcie_host_all_to_all_bytes_per_s = 0;
  EXPECT_DOUBLE_EQ(PlaceGroup(rings_only, {8, 1}).host_bytes_per_s, 3.8e9);
  EXPECT_EQ(PlaceGroup(c, {4, 2}).per_switch, 2);
  // The H100 PCIe entry states no switches: one flat PCIe fabric.
  EXPECT_FALSE(hw.FindFabric("H100-PCIe").pcie_switches());
  EXPECT_CONTAINS(MergeError("[fabric.x]\ngpus_per_node = 8\nnvlink_domain = 8\nnvlink_gb_per_s = 32.0\n"
                             "net_gb_per_s = 25.0\nscale_up_link = \"pcie\"\npcie_gpus_per_switch = 4\n"),
                  "[fabric.x] pcie_gpus_per_switch needs pcie_host_gb_per_s and pcie_host_ring_gb_per_s");
}

TEST(HardwareCatalog, ScaleUpLinkAndAliasErrors) {
  EXPECT_CONTAINS(MergeError("[fabric.x]\ngpus_per_node = 8\nnvlink_domain = 8\nnvlink_gb_per_s = 32.0\n"
                             "net_gb_per_s = 25.0\nscale_up_link = \"infiniband\"\n"),
                  "user.toml:6: [fabric.x] field 'scale_up_link' must be nvlink or pcie, got 'infiniband'");
  EXPECT_CONTAINS(MergeError(NewGpu() + "aliases = \"X\"\n"), "[X200] field 'aliases' must be a list of strings");
  EXPECT_CONTAINS(MergeError(NewGpu() + "aliases = [\"H100\"]\n"), "alias 'H100' is the name of GPU 'H100'");
  EXPECT_CONTAINS(MergeError(NewGpu() + "aliases = [\"H100-SXM\"]\n"), "alias 'H100-SXM' is also an alias of 'H100'");
  HardwareCatalog hw = HardwareCatalog::BuiltIn();
  hw.Merge(NewGpu() + "aliases = [\"X200-SXM\"]\nscale_up_link = \"pcie\"\n", "user.toml");
  EXPECT_EQ(hw.Find("x200-sxm").name, "X200");
  EXPECT_EQ(hw.FindFabric("X200").scale_up, LinkClass::kPcie);
}

TEST(HardwareCatalog, FindIsCaseInsensitive) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  EXPECT_EQ(hw.Find("h100").name, "H100");
  EXPECT_EQ(hw.Find("a100-80gb").name, "A100-80GB");
  EXPECT_EQ(hw.Find("Gb200").name, "GB200");
}

TEST(HardwareCatalog, SiConversion) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const GpuSpec& h100 = hw.Find("H100");
  EXPECT_DOUBLE_EQ(h100.bf16_flops, 989.5e12);
  EXPECT_DOUBLE_EQ(h100.peak_flops(Precision::kBf16), 989.5e12);
  EXPECT_DOUBLE_EQ(h100.fp8_flops, 1979e12);
  EXPECT_DOUBLE_EQ(h100.fp4_flops, 0.0);
  EXPECT_DOUBLE_EQ(h100.peak_flops(Precision::kFp4), 0.0);
  EXPECT_DOUBLE_EQ(h100.hbm_bytes, 85.5e9);
  EXPECT_DOUBLE_EQ(h100.hbm_bytes_per_s, 3.35e12);
  const Fabric& hgx = hw.FindFabric("H100");
  EXPECT_DOUBLE_EQ(hgx.nvlink_bytes_per_s, 450e9);
  EXPECT_DOUBLE_EQ(hgx.nvlink_latency_s, 3e-6);
  EXPECT_DOUBLE_EQ(hgx.call_latency_s, 0.0);  // not measured on Hopper
  // Blackwell: SimuMax's fit of NCCL on a B200 node, the all-gather and reduce-scatter means
  // (9.18 and 8.03 us a step, 23.10 and 25.56 us a call; docs/hardware.md).
  for (const char* gpu : {"B200", "B300", "GB200", "GB300"}) {
    SCOPED_TRACE(gpu);
    EXPECT_DOUBLE_EQ(hw.FindFabric(gpu).nvlink_latency_s, 8.6e-6);
    EXPECT_DOUBLE_EQ(hw.FindFabric(gpu).call_latency_s, 24.3e-6);
  }
  EXPECT_DOUBLE_EQ(hgx.net_bytes_per_s(), 50e9);
  EXPECT_DOUBLE_EQ(hgx.net_latency_s, 10e-6);
  EXPECT_EQ(hgx.gpus_per_node, 8);
  EXPECT_EQ(hgx.nvlink_domain, 8);
  EXPECT_EQ(hgx.nics_per_node, 8);
  EXPECT_DOUBLE_EQ(h100.fp16_flops, 989.5e12);
  EXPECT_EQ(h100.sm_count, 132);
  EXPECT_EQ(h100.generation, "hopper");

  const GpuSpec& b300 = hw.Find("B300");
  EXPECT_EQ(hw.FindFabric("B300").nvlink_domain, 8);
  EXPECT_DOUBLE_EQ(b300.fp4_flops, 13.5e15);
  EXPECT_DOUBLE_EQ(b300.peak_flops(Precision::kFp4), 13.5e15);
  EXPECT_DOUBLE_EQ(b300.bf16_flops, 2.25e15);
  EXPECT_EQ(b300.sm_count, 160);
  EXPECT_EQ(b300.generation, "blackwell");

  const Fabric& nvl72 = hw.FindFabric("GB200");
  EXPECT_EQ(nvl72.nvlink_domain, 72);
  EXPECT_EQ(nvl72.gpus_per_node, 4);
  EXPECT_EQ(hw.Cluster("GB200", 72).Describe(), "18 trays of 4 GPUs in 1 NVLink domain of 72");
  // The host link: NVLink-C2C's 900 GB/s (both directions) per Grace, shared by its two GPUs;
  // PCIe Gen5 / Gen4 x16 on HGX (32 / 16 GT/s x 16 lanes x 128/130 / 8).
  EXPECT_DOUBLE_EQ(nvl72.host_link_bytes_per_s, 225e9);
  EXPECT_DOUBLE_EQ(hw.FindFabric("H100").host_link_bytes_per_s, 63e9);
  EXPECT_DOUBLE_EQ(hw.FindFabric("A100-80GB").host_link_bytes_per_s, 31.5e9);
  for (const GpuSpec* g : hw.All()) EXPECT_GT(hw.FindFabric(g->name).host_link_bytes_per_s, 0) << g->name;
  EXPECT_EQ(hw.Cluster("H100", 8).Describe(), "1 node of 8");
  EXPECT_EQ(hw.Cluster("H100", 32).Describe(), "4 nodes of 8");
  // A cluster that does not divide into whole nodes or domains is said as it is (issue 32:
  // 12 H100s were "2 nodes of 8", 256 GB300s "4 NVLink domains of 72").
  EXPECT_EQ(hw.Cluster("H100", 12).Describe(), "1 node of 8 and 1 with 4 of its 8 GPUs");
  EXPECT_EQ(hw.Cluster("H100", 4).Describe(), "1 node with 4 of its 8 GPUs");
  EXPECT_EQ(hw.Cluster("GB300", 256).Describe(),
            "64 trays of 4 GPUs in 3 NVLink domains of 72 and 1 with 40 of its 72 GPUs");

  const GpuSpec& a100 = hw.Find("A100-80GB");
  EXPECT_DOUBLE_EQ(a100.peak_flops(Precision::kFp8), 0.0);
  EXPECT_DOUBLE_EQ(a100.bf16_flops, 312e12);
  EXPECT_DOUBLE_EQ(a100.hbm_bytes_per_s, 2.039e12);
}

TEST(HardwareCatalog, CalibrationAttachedPerGeneration) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  for (const GpuSpec* g : hw.All()) {
    const Calibration& c = g->calibration;
    for (double x : {c.gemm_bf16, c.gemm_fp8, c.gemm_fp4, c.attention, c.hbm, c.nvlink, c.net}) {
      EXPECT_GT(x, 0.0) << g->name;
      EXPECT_LE(x, 1.0) << g->name;
    }
  }
  // Each GPU carries its generation's table from data/calibration.toml.
  const std::map<std::string, std::string> generation = {
      {"A100-80GB", "ampere"}, {"A100-40GB", "ampere"}, {"H100", "hopper"},
      {"H200", "hopper"},      {"H800", "hopper"},      {"B200", "blackwell"},
      {"B300", "blackwell"},   {"GB200", "blackwell"},  {"GB300", "blackwell"}};
  for (const auto& [gpu, gen] : generation) {
    EXPECT_EQ(hw.Find(gpu).generation, gen);
    ExpectSameCalibration(hw.Find(gpu).calibration, CalibrationFromFile(gen), gpu + " vs [calibration." + gen + "]");
  }
  // The generations are calibrated differently, so the check above can tell them apart.
  const Calibration a = CalibrationFromFile("ampere"), h = CalibrationFromFile("hopper");
  EXPECT_TRUE(a.gemm_bf16 != h.gemm_bf16 || a.attention != h.attention || a.nvlink != h.nvlink || a.net != h.net ||
              a.hbm != h.hbm);
}

// Issue 32: overriding gpus_per_node alone kept 8 NICs for 3 GPUs (133 GB/s of scale-out per
// GPU instead of 50) and an 8-GPU NVLink domain across nodes ("3 trays of 3"). Per-GPU figures
// stay per GPU, the NVLink domain stays one node.
TEST(HardwareCatalog, NodeSizeOverrideKeepsPerGpuFigures) {
  HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const double net = hw.FindFabric("H100").net_bytes_per_s();
  ASSERT_DOUBLE_EQ(net, 50e9);
  hw.Merge("[H100]\ngpus_per_node = 3\n", "user.toml");
  const Fabric& f = hw.FindFabric("H100");
  EXPECT_DOUBLE_EQ(f.net_bytes_per_s(), net);
  EXPECT_EQ(f.nics_per_node, 3);
  EXPECT_EQ(f.nvlink_domain, 3);
  EXPECT_EQ(hw.Cluster("H100", 9).Describe(), "3 nodes of 3");
  // Given together, the fields say what they say.
  HardwareCatalog both = HardwareCatalog::BuiltIn();
  both.Merge("[H100]\ngpus_per_node = 4\nnics_per_node = 1\nnet_gb_per_s = 25.0\n", "user.toml");
  EXPECT_DOUBLE_EQ(both.FindFabric("H100").net_bytes_per_s(), 25e9);
  EXPECT_EQ(both.FindFabric("H100").nics_per_node, 1);
}

TEST(HardwareCatalog, MergeOverridesOneFieldAndKeepsTheOthers) {
  HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const GpuSpec before = hw.Find("H100");
  const Fabric before_fabric = hw.FindFabric("H100");
  hw.Merge("[H100]\nhbm_gb = 100.0\n", "user.toml");
  const GpuSpec& after = hw.Find("H100");
  const Fabric& after_fabric = hw.FindFabric("H100");
  EXPECT_DOUBLE_EQ(after.hbm_bytes, 100e9);
  EXPECT_DOUBLE_EQ(after.bf16_flops, before.bf16_flops);
  EXPECT_DOUBLE_EQ(after.hbm_bytes_per_s, before.hbm_bytes_per_s);
  EXPECT_DOUBLE_EQ(after_fabric.nvlink_bytes_per_s, before_fabric.nvlink_bytes_per_s);
  EXPECT_EQ(after_fabric.gpus_per_node, before_fabric.gpus_per_node);
  EXPECT_EQ(after_fabric.nvlink_domain, before_fabric.nvlink_domain);
  EXPECT_EQ(after.description, before.description);
  ExpectSameCalibration(after.calibration, before.calibration, "H100 after override");
  EXPECT_EQ(hw.All().size(), 14u);  // the built-in 14 (BuiltInHasAllGpus)
  // Other GPUs are untouched.
  EXPECT_DOUBLE_EQ(hw.Find("H800").hbm_bytes, 85.5e9);

  // Case-insensitive table names override too; the catalog keeps its spelling.
  hw.Merge("[h100]\nnvlink_gb_per_s = 400.0\n", "user2.toml");
  EXPECT_DOUBLE_EQ(hw.FindFabric("H100").nvlink_bytes_per_s, 400e9);
  EXPECT_DOUBLE_EQ(hw.Find("H100").hbm_bytes, 100e9);
  EXPECT_EQ(hw.Find("H100").name, "H100");
  EXPECT_EQ(hw.All().size(), 14u);
}

TEST(HardwareCatalog, MergeChangingGenerationSwitchesCalibration) {
  HardwareCatalog hw = HardwareCatalog::BuiltIn();
  hw.Merge("[H100]\ngeneration = \"ampere\"\n", "user.toml");
  ExpectSameCalibration(hw.Find("H100").calibration, hw.Find("A100-80GB").calibration, "H100 as ampere");
}

TEST(HardwareCatalog, MergeCalibration) {
  HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const Calibration a100 = hw.Find("A100-80GB").calibration, h100 = hw.Find("H100").calibration;
  hw.Merge("[calibration.ampere]\ngemm_bf16 = 0.5\n", "user.toml");
  EXPECT_DOUBLE_EQ(hw.Find("A100-80GB").calibration.gemm_bf16, 0.5);
  EXPECT_DOUBLE_EQ(hw.Find("A100-40GB").calibration.gemm_bf16, 0.5);
  EXPECT_DOUBLE_EQ(hw.Find("A100-80GB").calibration.nvlink, a100.nvlink);  // kept
  ExpectSameCalibration(hw.Find("H100").calibration, h100, "other generation untouched");
}

TEST(HardwareCatalog, MergeAddsNewGpu) {
  HardwareCatalog hw = HardwareCatalog::BuiltIn();
  hw.Merge(NewGpu(), "user.toml");
  EXPECT_EQ(hw.All().size(), 15u);  // the built-in 14 and X200
  const GpuSpec& g = hw.Find("x200");
  EXPECT_EQ(g.name, "X200");
  EXPECT_EQ(g.generation, "hopper");
  EXPECT_DOUBLE_EQ(g.bf16_flops, 1000e12);
  EXPECT_DOUBLE_EQ(g.fp8_flops, 0.0);
  EXPECT_DOUBLE_EQ(g.hbm_bytes, 100e9);
  EXPECT_DOUBLE_EQ(g.hbm_bytes_per_s, 4e12);
  const Fabric& f = hw.FindFabric("x200");
  EXPECT_DOUBLE_EQ(f.nvlink_bytes_per_s, 450e9);
  EXPECT_DOUBLE_EQ(f.net_bytes_per_s(), 50e9);
  EXPECT_EQ(f.gpus_per_node, 8);
  EXPECT_EQ(f.nvlink_domain, 8);
  // Defaults for what it does not give.
  EXPECT_EQ(g.sm_count, 132);
  EXPECT_DOUBLE_EQ(f.nvlink_latency_s, 5e-6);
  EXPECT_DOUBLE_EQ(f.net_latency_s, 10e-6);
  EXPECT_DOUBLE_EQ(g.fp16_flops, 0.0);  // not given: the rules reject fp16 on it
  ExpectSameCalibration(g.calibration, hw.Find("H100").calibration, "new hopper GPU");
}

TEST(HardwareCatalog, NewGpuPicksUpCalibrationFromSameFile) {
  HardwareCatalog hw = HardwareCatalog::BuiltIn();
  hw.Merge("[calibration.hopper]\ngemm_bf16 = 0.6\n\n" + NewGpu(), "user.toml");
  EXPECT_DOUBLE_EQ(hw.Find("X200").calibration.gemm_bf16, 0.6);
  EXPECT_DOUBLE_EQ(hw.Find("H100").calibration.gemm_bf16, 0.6);
}

// A [fabric.NAME] table describes a cluster's own wiring: 4 NICs of 400 GB/s... per 8-GPU node,
// 16 nodes per leaf, a 2:1 oversubscribed spine; the GPU keeps its chip figures.
TEST(HardwareCatalog, FabricTable) {
  HardwareCatalog hw = HardwareCatalog::BuiltIn();
  hw.Merge(
      "[fabric.pod]\ngpus_per_node = 8\nnvlink_domain = 8\nnvlink_gb_per_s = 450.0\nnics_per_node = 4\n"
      "nic_gb_per_s = 50.0\nnodes_per_leaf = 16\nspine_oversubscription = 2.0\n",
      "user.toml");
  const ClusterSpec c = hw.Cluster("H100", 256, "pod");
  EXPECT_EQ(c.gpu.name, "H100");
  EXPECT_EQ(c.fabric.nics_per_node, 4);
  EXPECT_DOUBLE_EQ(c.fabric.net_bytes_per_s(), 25e9);  // 4 x 50 GB/s shared by 8 GPUs
  EXPECT_EQ(c.fabric.nodes_per_leaf, 16);
  EXPECT_DOUBLE_EQ(c.fabric.spine_oversubscription, 2.0);
  EXPECT_EQ(c.nodes(), 32);
  EXPECT_CONTAINS(InputErrorOf([&] { hw.FindFabric("nope"); }), "unknown fabric 'nope'");
  EXPECT_CONTAINS(MergeError("[fabric.x]\ngpus_per_node = 8\n"), "missing required field 'nvlink_domain'");
  EXPECT_CONTAINS(MergeError("[fabric.x]\ngpus_per_node = 8\nnvlink_domain = 8\nnvlink_gb_per_s = 1.0\n"),
                  "needs net_gb_per_s (per GPU) or nic_gb_per_s");
  EXPECT_CONTAINS(MergeError("[fabric.H100]\nspine_oversubscription = 0.5\n"), "must be at least 1");
  EXPECT_CONTAINS(MergeError("[fabric.H100]\nhbm_gb = 1.0\n"), "unknown field 'hbm_gb'");
}

// ---------------------------------------------------------------------------------------------
// Errors: InputError naming the file and line.

TEST(HardwareCatalogErrors, InvalidToml) {
  std::string msg = MergeError("[H100]\nhbm_gb = 80.0\n[H200\n");
  EXPECT_CONTAINS(msg, "user.toml:3:");
  EXPECT_CONTAINS(msg, "invalid TOML");
  msg = MergeError("[H100]\nhbm_gb = = 1\n");
  EXPECT_CONTAINS(msg, "user.toml:2:");
  msg = MergeError("[H100]\nhbm_gb = 1\n[H100]\nhbm_gb = 2\n");  // duplicate table
  EXPECT_CONTAINS(msg, "user.toml:3:");
}

TEST(HardwareCatalogErrors, UnknownField) {
  const std::string msg = MergeError("[H100]\nhbm_gb = 80.0\nhbm_gib = 80.0\n");
  EXPECT_CONTAINS(msg, "user.toml:3:");
  EXPECT_CONTAINS(msg, "[H100]");
  EXPECT_CONTAINS(msg, "unknown field 'hbm_gib'");

  const std::string cal = MergeError("# c\n[calibration.hopper]\ngemm_bf16 = 0.7\ngemm_bf17 = 0.7\n");
  EXPECT_CONTAINS(cal, "user.toml:4:");
  EXPECT_CONTAINS(cal, "unknown field 'gemm_bf17'");
}

TEST(HardwareCatalogErrors, MissingRequiredFieldForNewGpu) {
  for (const char* field : {"generation", "bf16_dense_tflops", "hbm_gb", "nvlink_domain", "net_gb_per_s"}) {
    const std::string msg = MergeError("# header\n" + NewGpu(field));
    EXPECT_CONTAINS(msg, "user.toml:2:");  // the [X200] header
    EXPECT_CONTAINS(msg, "[X200]");
    EXPECT_CONTAINS(msg, std::string("missing required field '") + field + "'");
  }
}

TEST(HardwareCatalogErrors, NegativeNumber) {
  std::string msg = MergeError("[H100]\nhbm_gb = -80.0\n");
  EXPECT_CONTAINS(msg, "user.toml:2:");
  EXPECT_CONTAINS(msg, "'hbm_gb'");
  EXPECT_CONTAINS(msg, "positive");
  msg = MergeError("[H100]\nnet_latency_us = -1\n");
  EXPECT_CONTAINS(msg, "user.toml:2:");
  EXPECT_CONTAINS(msg, "'net_latency_us' must be a non-negative number");
  msg = MergeError("[B200]\ncall_latency_us = -24.3\n");
  EXPECT_CONTAINS(msg, "user.toml:2:");
  EXPECT_CONTAINS(msg, "'call_latency_us' must be a non-negative number");
  msg = MergeError("[H100]\ngpus_per_node = -8\n");
  EXPECT_CONTAINS(msg, "user.toml:2:");
  EXPECT_CONTAINS(msg, "'gpus_per_node' must be a positive integer");
  // Zero is not allowed where a positive number is needed; nan/inf and strings neither.
  EXPECT_CONTAINS(MergeError("[H100]\nbf16_dense_tflops = 0.0\n"), "user.toml:2:");
  EXPECT_CONTAINS(MergeError("[H100]\nbf16_dense_tflops = inf\n"), "'bf16_dense_tflops'");
  EXPECT_CONTAINS(MergeError("[H100]\nbf16_dense_tflops = nan\n"), "'bf16_dense_tflops'");
  EXPECT_CONTAINS(MergeError("[H100]\nhbm_gb = \"80\"\n"), "'hbm_gb'");
  EXPECT_CONTAINS(MergeError("[H100]\nsm_count = 1.5\n"), "'sm_count'");
  // A float far beyond int64 where a count is wanted (hardware_toml_fuzz found the conversion).
  EXPECT_CONTAINS(MergeError("[H100]\ngpus_per_node = 5.8e66\n"), "'gpus_per_node' must be a positive integer");
  EXPECT_CONTAINS(MergeError("[H100]\ngpus_per_node = 8.0\n"), "'gpus_per_node' must be a positive integer");
  EXPECT_CONTAINS(MergeError("[H100]\ndescription = 3\n"), "'description' must be a string");
}

TEST(HardwareCatalogErrors, GenerationNotKnown) {
  const std::string msg = MergeError("[H100]\nhbm_gb = 80.0\ngeneration = \"volta\"\n");
  EXPECT_CONTAINS(msg, "user.toml:3:");
  EXPECT_CONTAINS(msg, "'generation' must be ampere, hopper or blackwell");
  EXPECT_CONTAINS(msg, "'volta'");
}

TEST(HardwareCatalogErrors, NvlinkDomainSmallerThanNode) {
  const std::string msg = MergeError("[H100]\nnvlink_domain = 4\n");
  EXPECT_CONTAINS(msg, "user.toml:2:");
  EXPECT_CONTAINS(msg, "nvlink_domain (4) is smaller than gpus_per_node (8)");
}

TEST(HardwareCatalogErrors, CalibrationAboveOne) {
  std::string msg = MergeError("[calibration.hopper]\nhbm = 0.9\ngemm_bf16 = 1.2\n");
  EXPECT_CONTAINS(msg, "user.toml:3:");
  EXPECT_CONTAINS(msg, "'gemm_bf16'");
  EXPECT_CONTAINS(msg, "at most 1");
  msg = MergeError("[calibration.hopper]\nnvlink = 0.0\n");
  EXPECT_CONTAINS(msg, "user.toml:2:");
  EXPECT_CONTAINS(msg, "'nvlink'");
  msg = MergeError("calibration = 3\n");
  EXPECT_CONTAINS(msg, "user.toml:1:");
  EXPECT_CONTAINS(msg, "'calibration' must be a table");
  msg = MergeError("[calibration]\nhopper = 0.5\n");
  EXPECT_CONTAINS(msg, "user.toml:2:");
  EXPECT_CONTAINS(msg, "must be a table");
}

TEST(HardwareCatalogErrors, TopLevelNonTable) {
  std::string msg = MergeError("# a comment\nH100 = 3\n");
  EXPECT_CONTAINS(msg, "user.toml:2:");
  EXPECT_CONTAINS(msg, "top-level key 'H100' must be a [table]");
  msg = MergeError("gpus = [1, 2]\n");
  EXPECT_CONTAINS(msg, "user.toml:1:");
}

TEST(HardwareCatalogErrors, FindUnknownListsKnownNames) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const std::string msg = InputErrorOf([&] { hw.Find("Z100"); });
  EXPECT_CONTAINS(msg, "unknown GPU 'Z100'");
  for (const char* n : {"B300", "B200", "GB200", "GB300", "H200", "H100", "H800", "A100-80GB", "A100-40GB"})
    EXPECT_CONTAINS(msg, n);
}

}  // namespace
}  // namespace paratune
