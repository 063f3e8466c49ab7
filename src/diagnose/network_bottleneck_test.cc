#include <gtest/gtest.h>

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "diagnose/link_ceiling.h"
#include "diagnose/rules.h"
#include "hardware/hardware_catalog.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// An all_reduce_perf log in the nccl-tests 2.13-2.18 layout: `nodes` hosts of `per_node` ranks
// of `device`, rows of 1 MiB .. 8 GiB whose large-message bus bandwidth is `busbw_gbs` (smaller
// sizes ramp up to it).
std::string AllReduceLog(int nodes, int per_node, const std::string& device, double busbw_gbs) {
  const int n = nodes * per_node;
  std::string s = fmt::format(
      "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
      "validation: 1 graph: 0\n#\n# Using devices\n");
  for (int r = 0; r < n; ++r)
    s += fmt::format("#  Rank {:2d} Group  0 Pid {:6d} on {:>10} device {:2d} [0x{:02x}] {}\n", r, 1000 + r,
                     fmt::format("node-{:02d}", r / per_node), r % per_node, 0x18 + r % per_node, device);
  s +=
      "#\n#                                                              out-of-place                       in-place\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";
  const double factor = 2.0 * (n - 1) / n;
  for (int k = 20; k <= 33; ++k) {
    const double bytes = std::ldexp(1.0, k);
    const double bus = busbw_gbs * std::min(1.0, (k - 19) / 6.0);  // full rate from 64 MiB on
    const double alg = bus / factor;
    const double us = bytes / (alg * 1e9) * 1e6;
    s += fmt::format(
        "{:12.0f}  {:12.0f}     float     sum      -1  {:7.1f}  {:6.2f}  {:6.2f}      0  {:7.1f}  {:6.2f}  {:6.2f}     "
        " 0\n",
        bytes, bytes / 4, us, alg, bus, us, alg, bus);
  }
  s += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 100.0 \n#\n";
  return s;
}

std::vector<Finding> CheckRule(const DiagnoseInputs& in) {
  std::vector<Finding> out;
  MakeNetworkBottleneckRule()->Check(in, &out);
  return out;
}

const Evidence* FindEvidence(const Finding& f, const std::string& name) {
  for (const auto& e : f.evidence)
    if (e.name == name) return &e;
  return nullptr;
}

TEST(LinkCeiling, DeviceNamesMapToCatalogGpus) {
  EXPECT_EQ(CatalogGpuForDevice("NVIDIA H100 80GB HBM3"), "H100");
  EXPECT_EQ(CatalogGpuForDevice("NVIDIA A100-SXM4-80GB"), "A100-80GB");
  EXPECT_EQ(CatalogGpuForDevice("NVIDIA A100-SXM4-40GB"), "A100-40GB");
  EXPECT_EQ(CatalogGpuForDevice("NVIDIA A100 80GB PCIe"), "A100-PCIe-80GB");
  EXPECT_EQ(CatalogGpuForDevice("NVIDIA H100 PCIe"), "H100-PCIe");
  EXPECT_EQ(CatalogGpuForDevice("NVIDIA H200"), "H200");
  EXPECT_EQ(CatalogGpuForDevice("NVIDIA H20"), "H20");
  EXPECT_EQ(CatalogGpuForDevice("NVIDIA H800"), "H800");
  EXPECT_EQ(CatalogGpuForDevice("NVIDIA B200"), "B200");
  EXPECT_EQ(CatalogGpuForDevice("NVIDIA GB200"), "GB200");
  EXPECT_EQ(CatalogGpuForDevice("NVIDIA H100 NVL"), "");  // a PCIe part with pair bridges: not in the catalog
  EXPECT_EQ(CatalogGpuForDevice("Tesla V100-SXM2-32GB"), "");
}

// A profiled collective's ceiling is the nccl-tests ceiling of its kind on its group's ranks,
// packed onto as few nodes as hold them. H100 (data/gpus.toml: NVLink 450 GB/s per direction, 8
// GPUs and 8 x 50 GB/s NICs per node):
//   all-reduce in 8: one node, NVLink 450 x 370/450 = 370 GB/s;
//   all-to-all in 16: 2 nodes of 8, per GPU 8 x 50 / 8 = 50 GB/s, x N/(N-1) = 2 on N = 2 nodes
//   = 100 GB/s line, x 0.96 = 96 GB/s;
//   all-gather in 16: 2 nodes, 8 NICs x 50 = 400 x 0.96 = 384, capped by NVLink's 370.
TEST(LinkCeiling, ProfiledCollectiveGroupsGetTheLinkTheyCross) {
  const ClusterSpec h100 = HardwareCatalog::BuiltIn().Cluster("H100", 64);
  const auto ar = CollectiveCeiling(Collective::kAllReduce, 8, h100);
  ASSERT_TRUE(ar);
  EXPECT_EQ(std::string(CeilingLinkName(*ar)), "nvlink");
  EXPECT_NEAR(ar->effective_bytes_per_s, 370e9, 1);
  const auto a2a = CollectiveCeiling(Collective::kAllToAll, 16, h100);
  ASSERT_TRUE(a2a);
  EXPECT_EQ(std::string(CeilingLinkName(*a2a)), "network");
  EXPECT_NEAR(a2a->line_bytes_per_s, 100e9, 1);
  EXPECT_NEAR(a2a->effective_bytes_per_s, 96e9, 1);
  const auto ag = CollectiveCeiling(Collective::kAllGather, 16, h100);
  ASSERT_TRUE(ag);
  EXPECT_EQ(std::string(CeilingLinkName(*ag)), "network");
  EXPECT_NEAR(ag->effective_bytes_per_s, 370e9, 1);
  // PCIe scale-up: H100 PCIe's link class is named as such.
  const auto pcie = CollectiveCeiling(Collective::kAllReduce, 2, HardwareCatalog::BuiltIn().Cluster("H100-PCIe", 8));
  ASSERT_TRUE(pcie);
  EXPECT_EQ(std::string(CeilingLinkName(*pcie)), "pcie");
  EXPECT_FALSE(CollectiveCeiling(Collective::kOther, 8, h100));
  EXPECT_FALSE(CollectiveCeiling(Collective::kAllReduce, 0, h100));
}

TEST(LinkCeiling, OneH100NodeIsNvlinkTwoNodesAreTheNics) {
  NcclTestsRun one = ParseNcclTests(AllReduceLog(1, 8, "NVIDIA H100 80GB HBM3", 360), "one.log");
  one.collective = Collective::kAllReduce;
  const auto c = NcclTestsCeiling(one, nullptr);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->gpu, "H100");
  EXPECT_EQ(c->link, CeilingLink::kScaleUp);
  EXPECT_DOUBLE_EQ(c->line_bytes_per_s, 450e9);     // data/gpus.toml: 900 GB/s both directions / 2
  EXPECT_NEAR(c->effective_bytes_per_s, 370e9, 1);  // nccl-tests/issues/212
  EXPECT_NEAR(c->nvls_bytes_per_s, 480e9, 1);
  // Two nodes of 8: 8 NICs x 50 GB/s = 400 GB/s line, x 0.96 = 384, capped by NVLink's 370.
  const NcclTestsRun two = ParseNcclTests(AllReduceLog(2, 8, "NVIDIA H100 80GB HBM3", 100), "two.log");
  const auto n = NcclTestsCeiling(two, nullptr);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->link, CeilingLink::kNetwork);
  EXPECT_EQ(n->nodes, 2);
  EXPECT_EQ(n->nics_used, 8);
  EXPECT_DOUBLE_EQ(n->line_bytes_per_s, 400e9);
  EXPECT_NEAR(n->effective_bytes_per_s, 370e9, 1);
  EXPECT_DOUBLE_EQ(n->nvls_bytes_per_s, 0);
  // Two A100 nodes of 8 (8 x 200 Gb/s HDR): 200 GB/s x 0.96 = 192 GB/s, NCCL's published DGX A100 figure.
  const auto a = NcclTestsCeiling(ParseNcclTests(AllReduceLog(2, 8, "NVIDIA A100-SXM4-80GB", 100), "a.log"), nullptr);
  ASSERT_TRUE(a);
  EXPECT_NEAR(a->effective_bytes_per_s, 192e9, 1);
  // Two nodes of one GPU each: one NIC, 50 x 0.96 = 48 GB/s (CX-7 NDR, nccl-tests/issues/267).
  const auto single =
      NcclTestsCeiling(ParseNcclTests(AllReduceLog(2, 1, "NVIDIA H100 80GB HBM3", 40), "s.log"), nullptr);
  ASSERT_TRUE(single);
  EXPECT_EQ(single->nics_used, 1);
  EXPECT_DOUBLE_EQ(single->line_bytes_per_s, 50e9);
  EXPECT_NEAR(single->effective_bytes_per_s, 48e9, 1);
}

TEST(NetworkBottleneck, HalfBandwidthOnEightH100Warns) {
  DiagnoseInputs in;
  in.nccl_tests.push_back(ParseNcclTests(AllReduceLog(1, 8, "NVIDIA H100 80GB HBM3", 185), "half.log"));
  in.nccl_tests.back().collective = Collective::kAllReduce;
  const auto out = CheckRule(in);
  ASSERT_EQ(out.size(), 1u);
  const Finding& f = out[0];
  EXPECT_EQ(f.rule, "network_bottleneck");
  EXPECT_EQ(f.severity, Severity::kWarning);  // no plan: the loss cannot be estimated
  EXPECT_DOUBLE_EQ(f.loss_fraction, 0);
  EXPECT_DOUBLE_EQ(FindEvidence(f, "large-message busbw (median of rows >= 256 MiB)")->value, 185e9);
  EXPECT_NEAR(FindEvidence(f, "busbw / effective ceiling")->value, 0.5, 1e-12);
  EXPECT_NEAR(FindEvidence(f, "busbw / line rate")->value, 185.0 / 450, 1e-12);
  EXPECT_CONTAINS(f.message,
                  "185.0 GB/s = 50.0% of the 370.0 GB/s effective NVLink ceiling (41.1% of the 450.0 GB/s line rate");
  EXPECT_CONTAINS(f.fix, "nvidia-smi nvlink --status");
  ASSERT_EQ(f.where.lines.size(), 1u);
  EXPECT_EQ(f.where.lines[0].substr(0, 9), "half.log:");
}

TEST(NetworkBottleneck, HealthyH100NodeIsInfoOnly) {
  DiagnoseInputs in;
  in.nccl_tests.push_back(ParseNcclTests(AllReduceLog(1, 8, "NVIDIA H100 80GB HBM3", 360), "ok.log"));
  const auto out = CheckRule(in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kInfo);
  EXPECT_NEAR(FindEvidence(out[0], "busbw / effective ceiling")->value, 360.0 / 370, 1e-12);
}

TEST(NetworkBottleneck, TwoNodesAtAQuarterOfTheNicRate) {
  DiagnoseInputs in;
  in.nccl_tests.push_back(ParseNcclTests(AllReduceLog(2, 8, "NVIDIA H100 80GB HBM3", 100), "two.log"));
  const auto out = CheckRule(in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kWarning);
  EXPECT_NEAR(FindEvidence(out[0], "busbw / line rate")->value, 0.25, 1e-12);  // of 8 x 400 Gb/s
  EXPECT_CONTAINS(out[0].message, "effective network ceiling");
  EXPECT_CONTAINS(out[0].fix, "ibstat");
}

TEST(NetworkBottleneck, AcrossNodesComparedWithInsideOneNode) {
  DiagnoseInputs in;
  in.nccl_tests.push_back(ParseNcclTests(AllReduceLog(1, 8, "NVIDIA H100 80GB HBM3", 360), "one.log"));
  in.nccl_tests.push_back(ParseNcclTests(AllReduceLog(2, 8, "NVIDIA H100 80GB HBM3", 90), "two.log"));
  const auto out = CheckRule(in);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].severity, Severity::kInfo);
  EXPECT_EQ(out[1].severity, Severity::kWarning);
  EXPECT_DOUBLE_EQ(FindEvidence(out[1], "busbw of the same collective inside one node")->value, 360e9);
  EXPECT_CONTAINS(
      out[1].message,
      "Inside one node (one.log) the same collective reaches 360.0 GB/s: across nodes it keeps 25% of that.");
}

TEST(NetworkBottleneck, ThePlanSizesTheLoss) {
  DiagnoseInputs in;
  in.nccl_tests.push_back(ParseNcclTests(AllReduceLog(1, 8, "NVIDIA H100 80GB HBM3", 185), "half.log"));
  PlannedRun p;
  p.cluster = HardwareCatalog::BuiltIn().Cluster("H100", 64);
  p.estimate.comm_share = 0.2;
  in.plan = p;
  const auto out = CheckRule(in);
  ASSERT_EQ(out.size(), 1u);
  // Exposed communication 20% of the step runs at half speed: 1 - 1 / (1 + 0.2 x (2 - 1)) = 1/6.
  EXPECT_NEAR(out[0].loss_fraction, 1.0 / 6, 1e-12);
  EXPECT_EQ(out[0].severity, Severity::kCritical);
}

TEST(NetworkBottleneck, NoGpuNoCeilingIsInfo) {
  DiagnoseInputs in;
  in.nccl_tests.push_back(ParseNcclTests("#  size  time  algbw  busbw\n1073741824 10000 107.37 187.90\n", "bare.log"));
  const auto out = CheckRule(in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].severity, Severity::kInfo);
  EXPECT_CONTAINS(out[0].title, "no ceiling");
}

TEST(NetworkBottleneck, SharedA100LogAgainstTheNvlinkCeiling) {
  PARATUNE_SHARED_OR_SKIP(path, "traces/nccl_tests/all_reduce_perf_1x8xA100_ml-engineering_massaged.txt");
  DiagnoseInputs in;
  in.nccl_tests.push_back(ReadNcclTests(path));
  // The excerpt has no Rank lines: the GPU comes from the plan (--gpu A100-80GB).
  PlannedRun p;
  p.cluster = HardwareCatalog::BuiltIn().Cluster("A100-80GB", 8);
  in.plan = p;
  const auto out = CheckRule(in);
  ASSERT_EQ(out.size(), 1u);
  const Finding& f = out[0];
  // Median busbw of the rows >= 256 MiB: 231.41 GB/s; ceiling 300 GB/s (NVLink 3, 600 both
  // directions) x 370/450 = 246.67 GB/s: 93.8% of the ceiling, 77.1% of the line rate.
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_DOUBLE_EQ(FindEvidence(f, "large-message busbw (median of rows >= 256 MiB)")->value, 231.41e9);
  EXPECT_NEAR(FindEvidence(f, "effective ceiling")->value, 300e9 * 370 / 450, 1);
  EXPECT_DOUBLE_EQ(FindEvidence(f, "line rate")->value, 300e9);
  EXPECT_NEAR(FindEvidence(f, "busbw / effective ceiling")->value, 231.41 / (300.0 * 370 / 450), 1e-12);
  EXPECT_NEAR(FindEvidence(f, "busbw / line rate")->value, 0.771, 0.0005);
  EXPECT_CONTAINS(f.message,
                  "231.4 GB/s = 93.8% of the 246.7 GB/s effective NVLink ceiling (77.1% of the 300.0 GB/s line rate");
  EXPECT_EQ(FindEvidence(f, "NVLink SHARP all-reduce ceiling"), nullptr);  // Ampere has no NVLS
}

RankAnalysis RankWith(double window_s, Collective kind, double total_s, double exposed_s) {
  RankAnalysis r;
  r.rank = 3;
  r.path = "rank3.json";
  r.temporal.window_s = window_s;
  CollectiveStats c;
  c.kind = kind;
  c.count = 10;
  c.total_s = total_s;
  c.exposed_s = exposed_s;
  r.collectives.push_back(c);
  return r;
}

TEST(NetworkBottleneck, ExposedGradientAllReduceInATrace) {
  DiagnoseInputs in;
  in.analysis.emplace();
  in.analysis->ranks.push_back(RankWith(2.0, Collective::kAllReduce, 0.6, 0.5));
  const auto out = CheckRule(in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_DOUBLE_EQ(out[0].loss_fraction, 0.25);  // 0.5 s exposed of 2 s
  EXPECT_EQ(out[0].severity, Severity::kCritical);
  EXPECT_EQ(out[0].where.gpus, (std::vector<int>{3}));
  EXPECT_CONTAINS(out[0].fix, "--overlap-grad-reduce");
}

TEST(NetworkBottleneck, HiddenOrTensorParallelCommunicationIsNotAFinding) {
  DiagnoseInputs hidden;
  hidden.analysis.emplace();
  hidden.analysis->ranks.push_back(RankWith(2.0, Collective::kAllReduce, 0.6, 0.1));  // 5%
  EXPECT_TRUE(CheckRule(hidden).empty());
  DiagnoseInputs tp;
  tp.analysis.emplace();
  tp.analysis->ranks.push_back(RankWith(2.0, Collective::kAllReduce, 0.6, 0.5));
  PlannedRun p;
  p.cluster = HardwareCatalog::BuiltIn().Cluster("H100", 8);
  p.layout.tp = 8;  // the all-reduce is tensor parallelism's, on the critical path by design
  tp.plan = p;
  EXPECT_TRUE(CheckRule(tp).empty());
}

}  // namespace
}  // namespace paratune
