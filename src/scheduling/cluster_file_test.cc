// Tests of the cluster descriptions: flags, the cluster TOML file and the Alibaba v2023 node list.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scheduling/topology.h"
#include "util/error.h"
#include "util/file.h"
#include "util/test_util.h"

namespace paratune {
namespace {

const HardwareCatalog& Catalog() {
  static const HardwareCatalog c = HardwareCatalog::BuiltIn();
  return c;
}

ClusterTopology Read(const std::string& text) { return ReadClusterFile(Catalog(), text, "c.toml"); }
std::string ReadError(const std::string& text) {
  return InputErrorOf([&] { Read(text); });
}

TEST(TopologyFromFlags, HgxNodesFromTheReferenceFabric) {
  const ClusterTopology t = TopologyFromFlags(Catalog(), "B300", 256);
  ASSERT_EQ(t.types.size(), 1u);
  const NodeType& ty = t.types[0];
  EXPECT_EQ(ty.name, "B300");
  EXPECT_TRUE(ty.priced);
  EXPECT_EQ(ty.gpu_spec.name, "B300");
  EXPECT_EQ(ty.count, 256);
  EXPECT_EQ(ty.fabric.gpus_per_node, 8);  // data/gpus.toml [B300] gpus_per_node = 8, nvlink_domain = 8
  EXPECT_EQ(ty.nodes_per_domain(), 1);
  EXPECT_EQ(ty.fabric.nodes_per_leaf, 0);  // the reference fabric gives no leaf size: one network
  EXPECT_EQ(ty.fabric.spine_oversubscription, 1);
  EXPECT_EQ(ty.fabric.gpus_per_node, 8);
  EXPECT_EQ(ty.fabric.nvlink_domain, 8);
  // The fabric keeps the catalog's scale-out bandwidth per GPU.
  const Fabric& ref = Catalog().FindFabric("B300");
  EXPECT_DOUBLE_EQ(ty.fabric.net_bytes_per_s(), ref.net_bytes_per_s());
  EXPECT_EQ(t.total_gpus, 2048);
  EXPECT_EQ(t.domains, 256);
  EXPECT_EQ(t.leaves, 1);
}

TEST(TopologyFromFlags, Nvl72TraysFormDomainsOf18) {
  const ClusterTopology t = TopologyFromFlags(Catalog(), "GB200", 36);
  const NodeType& ty = t.types[0];
  EXPECT_EQ(ty.fabric.gpus_per_node, 4);  // [GB200] gpus_per_node = 4 (a compute tray)
  EXPECT_EQ(ty.nodes_per_domain(), 18);   // nvlink_domain 72 / 4
  EXPECT_EQ(ty.fabric.nvlink_domain, 72);
  EXPECT_EQ(t.domains, 2);
  EXPECT_EQ(t.total_gpus, 144);
  EXPECT_EQ(t.nodes[17].domain, 0);
  EXPECT_EQ(t.nodes[18].domain, 1);
}

TEST(TopologyFromFlags, AliasFindsTheChipAndBadInputIsAnError) {
  EXPECT_EQ(TopologyFromFlags(Catalog(), "h100-sxm", 2).types[0].gpu_spec.name, "H100");
  EXPECT_CONTAINS(InputErrorOf([] { TopologyFromFlags(Catalog(), "Z9000", 4); }), "unknown GPU 'Z9000'");
  EXPECT_CONTAINS(InputErrorOf([] { TopologyFromFlags(Catalog(), "H100", 0); }),
                  "--nodes must be from 1 to 131072, got 0");
  EXPECT_CONTAINS(InputErrorOf([] { TopologyFromFlags(Catalog(), "H100", kMaxClusterNodes + 1); }), "--nodes");
}

constexpr const char* kTwoTypes = R"(# a cluster of two node types
[[nodes]]
name = "train"
count = 64
gpu = "H100"
nodes_per_leaf = 16
spine_oversubscription = 2.0

[[nodes]]
name = "inference"
count = 10
gpu = "T4"
gpus_per_node = 4
)";

TEST(ReadClusterFile, TomlWithTwoNodeTypes) {
  const ClusterTopology t = Read(kTwoTypes);
  ASSERT_EQ(t.types.size(), 2u);
  const NodeType& a = t.types[0];
  EXPECT_EQ(a.name, "train");
  EXPECT_TRUE(a.priced);
  EXPECT_EQ(a.count, 64);
  EXPECT_EQ(a.fabric.gpus_per_node, 8);
  EXPECT_EQ(a.nodes_per_domain(), 1);
  EXPECT_EQ(a.fabric.nodes_per_leaf, 16);
  EXPECT_EQ(a.fabric.spine_oversubscription, 2);
  EXPECT_EQ(a.fabric.nodes_per_leaf, 16);  // the type's sizes go into its fabric
  EXPECT_EQ(a.fabric.spine_oversubscription, 2);
  const NodeType& b = t.types[1];
  EXPECT_EQ(b.name, "inference");
  EXPECT_EQ(b.gpu, "T4");
  EXPECT_FALSE(b.priced);
  EXPECT_EQ(b.count, 10);
  EXPECT_EQ(b.fabric.gpus_per_node, 4);
  EXPECT_EQ(t.nodes.size(), 74u);
  EXPECT_EQ(t.total_gpus, 64 * 8 + 10 * 4);
  EXPECT_EQ(t.leaves, 4 + 1);     // 64 / 16 leaves, and the T4 nodes under one
  EXPECT_EQ(t.domains, 64 + 10);  // every node its own NVLink domain
  EXPECT_EQ(t.nodes[63].leaf, 3);
  EXPECT_EQ(t.nodes[64].type, 1);
  EXPECT_EQ(t.nodes[64].leaf, 4);
  EXPECT_EQ(t.max_gpus_per_node, 8);
}

TEST(ReadClusterFile, FabricAndSizesOverrideTheReference) {
  const ClusterTopology t = Read(
      "[[nodes]]\ncount = 4\ngpu = \"B200\"\nfabric = \"GB200\"\n"
      "[[nodes]]\nname = \"b300-4\"\ncount = 3\ngpu = \"B300\"\ngpus_per_node = 4\n");
  const NodeType& a = t.types[0];
  EXPECT_EQ(a.name, "B200");  // no name: the GPU's
  EXPECT_EQ(a.gpu_spec.name, "B200");
  EXPECT_EQ(a.fabric.gpus_per_node, 4);  // from the GB200 rack's fabric
  EXPECT_EQ(a.nodes_per_domain(), 18);
  EXPECT_EQ(a.fabric.nvlink_domain, 72);
  const NodeType& b = t.types[1];
  EXPECT_EQ(b.fabric.gpus_per_node, 4);
  EXPECT_EQ(b.nodes_per_domain(), 1);  // B300's domain (8) over its own node size (8)
  EXPECT_EQ(b.fabric.nvlink_domain, 4);
  EXPECT_EQ(b.fabric.gpus_per_node, 4);
  // Four GPUs per node, the same scale-out bandwidth per GPU.
  EXPECT_DOUBLE_EQ(b.fabric.net_bytes_per_s(), Catalog().FindFabric("B300").net_bytes_per_s());
  EXPECT_EQ(t.domains, 1 + 3);  // 4 trays in one domain of 18, then 3 nodes
}

TEST(ReadClusterFile, BrokenInputNamesLineAndField) {
  EXPECT_EQ(ReadError("[[nodes]]\ngpu = \"H100\"\n"), "c.toml:1: [[nodes]] #1 is missing required field 'count'");
  EXPECT_EQ(ReadError("[[nodes]]\ncount = 4\n"), "c.toml:1: [[nodes]] #1 is missing required field 'gpu'");
  EXPECT_EQ(ReadError("[[nodes]]\ngpu = \"H100\"\ncount = 4.0\n"),
            "c.toml:3: [[nodes]] #1 field 'count' must be an integer from 1 to 131072");
  EXPECT_EQ(ReadError("[[nodes]]\ngpu = \"H100\"\ncount = 1e300\n"),
            "c.toml:3: [[nodes]] #1 field 'count' must be an integer from 1 to 131072");
  EXPECT_EQ(ReadError("[[nodes]]\ngpu = \"H100\"\ncount = -3\n"),
            "c.toml:3: [[nodes]] #1 field 'count' must be an integer from 1 to 131072");
  EXPECT_EQ(ReadError("[[nodes]]\ngpu = \"H100\"\ncount = 9223372036854775807\n"),
            "c.toml:3: [[nodes]] #1 field 'count' must be an integer from 1 to 131072");
  EXPECT_EQ(ReadError("[[nodes]]\ngpu = \"H100\"\ncount = 4\ncolour = \"red\"\n"),
            "c.toml:4: [[nodes]] #1 unknown field 'colour' (known: name, count, gpu, gpus_per_node, nodes_per_domain, "
            "nodes_per_leaf, spine_oversubscription, fabric)");
  EXPECT_EQ(ReadError("[[nodes]]\ngpu = \"H100\"\ncount = 4\n[[nodes]]\ngpu = \"T4\"\ncount = 2\n"),
            "c.toml:5: [[nodes]] #2 GPU 'T4' is not in the hardware catalog, so field 'gpus_per_node' is required");
  EXPECT_EQ(ReadError("[[nodes]]\ngpu = \"H100\"\ncount = 4\ngpus_per_node = 0\n"),
            "c.toml:4: [[nodes]] #1 field 'gpus_per_node' must be an integer from 1 to 1024");
  EXPECT_EQ(ReadError("[[nodes]]\ngpu = \"H100\"\ncount = 4\nnodes_per_leaf = -1\n"),
            "c.toml:4: [[nodes]] #1 field 'nodes_per_leaf' must be an integer from 0 to 131072");
  EXPECT_EQ(ReadError("[[nodes]]\ngpu = \"H100\"\ncount = 4\nspine_oversubscription = 0.5\n"),
            "c.toml:4: [[nodes]] #1 field 'spine_oversubscription' must be a number from 1 to 1e+06");
  EXPECT_EQ(ReadError("[[nodes]]\ngpu = \"H100\"\ncount = 4\nspine_oversubscription = nan\n"),
            "c.toml:4: [[nodes]] #1 field 'spine_oversubscription' must be a number from 1 to 1e+06");
  EXPECT_EQ(ReadError("[[nodes]]\ngpu = 8\ncount = 4\n"),
            "c.toml:2: [[nodes]] #1 field 'gpu' must be a non-empty string (at most 200 characters)");
  EXPECT_CONTAINS(ReadError("[[nodes]]\ngpu = \"H100\"\ncount = 4\nfabric = \"nope\"\n"),
                  "c.toml:4: [[nodes]] #1 field 'fabric': unknown fabric 'nope'; known: ");
  EXPECT_EQ(ReadError("[[nodes]]\ngpu = \"H100\"\ncount = 4\n[[nodes]]\ngpu = \"H100\"\ncount = 2\n"),
            "c.toml:4: [[nodes]] #2 field 'name': node type 'H100' is already defined at line 1");
  EXPECT_EQ(ReadError("gpu = \"H100\"\n"),
            "c.toml:1: unknown top-level key 'gpu' (a cluster file has [[nodes]] tables only)");
  EXPECT_EQ(ReadError("[nodes]\ngpu = \"H100\"\n"), "c.toml:1: 'nodes' must be [[nodes]] tables, one per node type");
  EXPECT_EQ(ReadError(""), "c.toml: no [[nodes]] table (one per node type)");
  EXPECT_CONTAINS(ReadError("[[nodes]\n"), "c.toml:1: invalid TOML: ");
  // More nodes than kMaxClusterNodes over two types: BuildTopology's bound, named by the file.
  EXPECT_EQ(ReadError("[[nodes]]\nname = \"a\"\ngpu = \"H100\"\ncount = 100000\n"
                      "[[nodes]]\nname = \"b\"\ngpu = \"H100\"\ncount = 100000\n"),
            "c.toml: cluster: more than 131072 nodes");
}

constexpr const char* kAlibabaHeader = "sn,cpu_milli,memory_mib,gpu,model\n";

TEST(ReadClusterFile, AlibabaNodeListGroupsByModelAndGpus) {
  const ClusterTopology t = ReadClusterFile(Catalog(),
                                            std::string(kAlibabaHeader) +
                                                "n0,64000,262144,2,P100\n"
                                                "n1,96000,786432,8,G2\n"
                                                "n2,64000,262144,2,P100\n"
                                                "n3,32000,131072,0,\n"
                                                "n4,96000,786432,8,H100\n",
                                            "nodes.csv");
  ASSERT_EQ(t.types.size(), 3u);
  EXPECT_EQ(t.types[0].name, "P100x2");
  EXPECT_EQ(t.types[0].count, 2);
  EXPECT_FALSE(t.types[0].priced);
  EXPECT_EQ(t.types[1].name, "G2x8");
  EXPECT_EQ(t.types[1].count, 1);
  EXPECT_EQ(t.types[2].name, "H100x8");
  EXPECT_TRUE(t.types[2].priced);  // a catalog name prices
  EXPECT_EQ(t.types[2].fabric.nodes_per_leaf, 0);
  EXPECT_EQ(t.total_gpus, 2 * 2 + 8 + 8);  // the CPU-only node is left out
  EXPECT_EQ(
      InputErrorOf([] { ReadClusterFile(Catalog(), std::string(kAlibabaHeader) + "n0,1,1,two,T4\n", "nodes.csv"); }),
      "nodes.csv:2: field 'gpu' must be an integer from 0 to 1024, got 'two'");
  EXPECT_EQ(
      InputErrorOf([] { ReadClusterFile(Catalog(), std::string(kAlibabaHeader) + "n0,1,1,-2,T4\n", "nodes.csv"); }),
      "nodes.csv:2: field 'gpu' must be an integer from 0 to 1024, got '-2'");
  EXPECT_EQ(InputErrorOf([] { ReadClusterFile(Catalog(), std::string(kAlibabaHeader) + "n0,1,1,4,\n", "nodes.csv"); }),
            "nodes.csv:2: field 'model' must name the node's GPU");
  EXPECT_EQ(InputErrorOf([] { ReadClusterFile(Catalog(), std::string(kAlibabaHeader) + "n0,1,1,0,\n", "nodes.csv"); }),
            "nodes.csv: the node list has no node with a GPU");
  EXPECT_CONTAINS(
      InputErrorOf([] { ReadClusterFile(Catalog(), std::string(kAlibabaHeader) + "n0,1,1\n", "nodes.csv"); }),
      "nodes.csv:2");
}

TEST(ReadClusterFile, AlibabaV2023NodeListOfTheTrace) {
  PARATUNE_SHARED_OR_SKIP(path, "cluster-traces/alibaba-gpu-v2023/openb_node_list_gpu_node.csv");
  const ClusterTopology t = ReadClusterFile(Catalog(), ReadFile(path), path);
  // 1,213 rows (../shared/cluster-traces/SOURCES.md), none without a GPU; (model, gpus) in order
  // of first appearance, counted with awk over the file.
  struct Expected {
    const char* name;
    int count, gpus;
  };
  const std::vector<Expected> expected = {{"P100x2", 131, 2},   {"G3x8", 39, 8},      {"V100M32x8", 21, 8},
                                          {"V100M16x4", 28, 4}, {"G2x8", 549, 8},     {"T4x4", 17, 4},
                                          {"T4x2", 387, 2},     {"V100M16x1", 19, 1}, {"V100M16x8", 8, 8},
                                          {"V100M32x4", 9, 4},  {"P100x1", 3, 1},     {"A10x1", 2, 1}};
  ASSERT_EQ(t.types.size(), expected.size());
  int nodes = 0, gpus = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i].name);
    EXPECT_EQ(t.types[i].name, expected[i].name);
    EXPECT_EQ(t.types[i].count, expected[i].count);
    EXPECT_EQ(t.types[i].fabric.gpus_per_node, expected[i].gpus);
    EXPECT_FALSE(t.types[i].priced);  // none of these chips is in the built-in catalog
    nodes += expected[i].count;
    gpus += expected[i].count * expected[i].gpus;
  }
  EXPECT_EQ(nodes, 1213);
  EXPECT_EQ(static_cast<int>(t.nodes.size()), 1213);
  EXPECT_EQ(t.total_gpus, gpus);
  EXPECT_EQ(t.total_gpus, 6212);
}

TEST(ReadClusterFile, AlibabaAliasPricesWhenTheCatalogHasTheChip) {
  // V100M32 stands for V100-32GB (the alias table of cluster_file.cc): defined here, it prices.
  HardwareCatalog hw = HardwareCatalog::BuiltIn();
  hw.Merge(
      "[V100-32GB]\ngeneration = \"ampere\"\nbf16_dense_tflops = 125.0\nhbm_gb = 32.0\nhbm_tb_per_s = 0.9\n"
      "gpus_per_node = 8\nnvlink_domain = 8\nnvlink_gb_per_s = 150.0\nnet_gb_per_s = 12.5\n",
      "v100.toml");
  const ClusterTopology t =
      ReadClusterFile(hw, std::string(kAlibabaHeader) + "n0,1,1,8,V100M32\nn1,1,1,8,V100M16\n", "nodes.csv");
  ASSERT_EQ(t.types.size(), 2u);
  EXPECT_TRUE(t.types[0].priced);
  EXPECT_EQ(t.types[0].gpu_spec.name, "V100-32GB");
  EXPECT_EQ(t.types[0].gpu, "V100M32");
  EXPECT_FALSE(t.types[1].priced);  // V100-16GB is not defined
}

// A type that lists its domains and leaves (what a Slurm topology.conf gives) is numbered as
// listed: domains of 2, 1 and 3 nodes, the first two under one leaf, the third under another.
TEST(BuildTopology, UnevenDomainsAndLeavesAsListed) {
  NodeType t;
  t.name = "uneven";
  t.gpu = "TEST";
  t.count = 6;
  t.fabric.gpus_per_node = 4;
  t.fabric.nvlink_domain = 12;  // the largest domain: 3 nodes
  t.fabric.nodes_per_leaf = 3;  // the largest leaf
  t.domain_nodes = {2, 1, 3};
  t.leaf_domains = {2, 1};
  const ClusterTopology c = BuildTopology({t, t});
  EXPECT_EQ(c.domains, 6);
  EXPECT_EQ(c.leaves, 4);
  EXPECT_EQ(c.total_gpus, 48);
  const int domain[] = {0, 0, 1, 2, 2, 2}, leaf[] = {0, 0, 0, 1, 1, 1};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(c.nodes[i].domain, domain[i]) << i;
    EXPECT_EQ(c.nodes[i].leaf, leaf[i]) << i;
    EXPECT_EQ(c.nodes[6 + i].domain, 3 + domain[i]) << i;  // the second type after the first
    EXPECT_EQ(c.nodes[6 + i].leaf, 2 + leaf[i]) << i;
  }
  EXPECT_EQ(c.Describe(),
            "6 nodes of 4 TEST (24 GPUs), NVLink domains of 1 to 3 nodes, 2 leaves of 3 nodes, spine 1:1; "
            "6 nodes of 4 TEST (24 GPUs), NVLink domains of 1 to 3 nodes, 2 leaves of 3 nodes, spine 1:1");
  t.domain_nodes = {2, 1, 2};  // 5 nodes listed for 6
  EXPECT_EQ(InputErrorOf([&] { BuildTopology({t}); }),
            "cluster: node type uneven: the domains and leaves it lists do not hold its 6 nodes");
  t.domain_nodes = {2, 1, 3};
  t.leaf_domains = {};
  EXPECT_EQ(InputErrorOf([&] { BuildTopology({t}); }),
            "cluster: node type uneven: domain_nodes and leaf_domains go together");
}

}  // namespace
}  // namespace paratune
