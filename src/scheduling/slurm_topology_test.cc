// Tests of Slurm's topology.conf (topology.conf(5), https://slurm.schedmd.com/topology.conf.html):
// hostlist expressions, the tree and block files, their mapping onto a ClusterTopology of --gpu
// nodes, and broken input.
#include "scheduling/slurm_topology.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scheduling/cluster_state.h"
#include "scheduling/topology.h"
#include "util/error.h"
#include "util/file.h"
#include "util/test_util.h"

namespace paratune {
namespace {

using HostNames = std::vector<std::string>;

const HardwareCatalog& SlurmCatalog() {
  static const HardwareCatalog c = HardwareCatalog::BuiltIn();
  return c;
}

ClusterTopology ReadConf(const std::string& text, const std::string& gpu = "B300") {
  return ReadClusterFile(SlurmCatalog(), text, "topology.conf", gpu);
}
std::string ConfError(const std::string& text, const std::string& gpu = "B300") {
  return InputErrorOf([&] { ReadConf(text, gpu); });
}

// ---- Hostlists ----

TEST(Hostlist, RangesListsAndPadding) {
  EXPECT_EQ(ExpandHostlist("a[1-3,5]", 100), (HostNames{"a1", "a2", "a3", "a5"}));
  EXPECT_EQ(ExpandHostlist("gpu[001-003]", 100), (HostNames{"gpu001", "gpu002", "gpu003"}));
  EXPECT_EQ(ExpandHostlist("n[9-11]", 100), (HostNames{"n9", "n10", "n11"}));  // no padding: "9" has one digit
  EXPECT_EQ(ExpandHostlist("tux[0-1,12],login", 100), (HostNames{"tux0", "tux1", "tux12", "login"}));
  EXPECT_EQ(ExpandHostlist("node7", 100), (HostNames{"node7"}));
  EXPECT_EQ(HostlistSize("tux[0-3,12,18-20]"), 8);  // the man page's example
}

TEST(Hostlist, SeveralBracketGroupsExpandFirstGroupSlowest) {
  EXPECT_EQ(ExpandHostlist("r[1-2]-n[1-2]", 100), (HostNames{"r1-n1", "r1-n2", "r2-n1", "r2-n2"}));
  EXPECT_EQ(HostlistSize("rack[1-2]-node[01-04]"), 8);
  EXPECT_EQ(ExpandHostlist("rack[1-2]-node[01-04]", 100)[4], "rack2-node01");
}

TEST(Hostlist, MalformedOrTooLargeIsAnErrorBeforeExpanding) {
  EXPECT_EQ(InputErrorOf([] { ExpandHostlist("n[5-1]", 100); }), "hostlist 'n[5-1]': range '5-1' is reversed");
  EXPECT_EQ(InputErrorOf([] { ExpandHostlist("n[1-4", 100); }), "hostlist 'n[1-4': unterminated '['");
  EXPECT_EQ(InputErrorOf([] { ExpandHostlist("n1-4]", 100); }), "hostlist 'n1-4]': ']' without '['");
  EXPECT_EQ(InputErrorOf([] { ExpandHostlist("n[]", 100); }), "hostlist 'n[]': empty brackets");
  EXPECT_EQ(InputErrorOf([] { ExpandHostlist("n[a-b]", 100); }),
            "hostlist 'n[a-b]': 'a' is not a number (a bracket holds ranges such as [1-4,7])");
  EXPECT_EQ(InputErrorOf([] { ExpandHostlist("a,,b", 100); }), "hostlist 'a,,b': an empty name");
  // 10^11 names: refused from the count alone, nothing is allocated.
  EXPECT_EQ(HostlistSize("n[0-99999999999]"), 100000000000);
  EXPECT_EQ(InputErrorOf([] { ExpandHostlist("n[0-99999999999]", kMaxClusterNodes); }),
            "hostlist 'n[0-99999999999]': names more than 131072 hosts");
  // Beyond int64: ParseInteger's out-of-range, never wrapped.
  EXPECT_EQ(InputErrorOf([] { ExpandHostlist("n[0-99999999999999999999]", 100); }),
            "hostlist 'n[0-99999999999999999999]': '99999999999999999999' is out of range");
  // Products of groups saturate rather than overflow.
  EXPECT_EQ(HostlistSize("a[0-999999999]b[0-999999999]c[0-999999999]"), kHostlistSizeCap);
}

// ---- topology/tree ----

// topology.conf(5)'s topology/tree example: three leaf switches of six nodes under one spine.
constexpr const char* kManPageTree = R"(##################################################################
# Slurm's network topology configuration file for use with the
# topology/tree plugin
##################################################################
SwitchName=s0 Nodes=dev[0-5]
SwitchName=s1 Nodes=dev[6-11]
SwitchName=s2 Nodes=dev[12-17]
SwitchName=s3 Switches=s[0-2]
)";

TEST(SlurmTopology, ManPageTreeReadsLeavesAndSpine) {
  const SlurmTopology conf = ReadSlurmTopology(kManPageTree, "topology.conf");
  EXPECT_FALSE(conf.block);
  ASSERT_EQ(conf.groups.size(), 3u);
  EXPECT_EQ(conf.groups[1].name, "s1");
  EXPECT_EQ(conf.groups[1].line, 6);
  EXPECT_EQ(conf.groups[1].nodes, (HostNames{"dev6", "dev7", "dev8", "dev9", "dev10", "dev11"}));
  EXPECT_EQ(conf.upper_switches, 1);
}

TEST(SlurmTopology, ManPageTreeOnB300Nodes) {
  EXPECT_TRUE(IsSlurmTopology(kManPageTree));
  const ClusterTopology t = ReadConf(kManPageTree);
  ASSERT_EQ(t.types.size(), 1u);
  const NodeType& ty = t.types[0];
  EXPECT_EQ(ty.gpu_spec.name, "B300");
  EXPECT_EQ(ty.count, 18);
  EXPECT_EQ(ty.fabric.gpus_per_node, 8);  // B300's reference node (data/gpus.toml)
  EXPECT_EQ(ty.fabric.nodes_per_leaf, 6);
  EXPECT_EQ(t.total_gpus, 144);
  EXPECT_EQ(t.leaves, 3);
  EXPECT_EQ(t.domains, 18);  // the file names no NVLink domain: each node is its own
  EXPECT_EQ(t.nodes[5].leaf, 0);
  EXPECT_EQ(t.nodes[6].leaf, 1);
  EXPECT_EQ(t.nodes[17].leaf, 2);
  ASSERT_EQ(t.node_names.size(), 18u);
  EXPECT_EQ(t.node_names[0], "dev0");
  EXPECT_EQ(t.node_names[17], "dev17");
  EXPECT_EQ(t.Describe(), "18 nodes of 8 B300 (144 GPUs), 3 leaves of 6 nodes, spine 1:1");
}

// Leaves of 6 and 4 nodes, keys in other cases, comments and a LinkSpeed.
constexpr const char* kUnevenTree = R"(# two racks
switchname=s0 nodes=gpu[001-006] linkspeed=400   # six nodes
SWITCHNAME=s1 NODES=gpu[007-010]
SwitchName=spine Switches=s[0-1]
)";

TEST(SlurmTopology, UnevenLeavesKeepTheirSizes) {
  const ClusterTopology t = ReadConf(kUnevenTree);
  const NodeType& ty = t.types[0];
  EXPECT_EQ(ty.count, 10);
  EXPECT_EQ(ty.leaf_domains, (std::vector<int>{6, 4}));
  EXPECT_EQ(ty.fabric.nodes_per_leaf, 6);  // the largest leaf
  EXPECT_EQ(t.leaves, 2);
  EXPECT_EQ(t.nodes[5].leaf, 0);
  EXPECT_EQ(t.nodes[6].leaf, 1);
  EXPECT_EQ(t.node_names[6], "gpu007");
  EXPECT_EQ(t.Describe(), "10 nodes of 8 B300 (80 GPUs), 2 leaves of 4 to 6 nodes, spine 1:1");
  // Placement sees the uneven leaves: 4 whole nodes best-fit the 4-node leaf, 5 fit only the 6-node one.
  const ClusterState state(t);
  const auto four = state.BestFit(0, 32);
  ASSERT_TRUE(four.has_value());
  EXPECT_EQ(four->shares.front().node, 6);
  EXPECT_EQ(four->shares.back().node, 9);
  const auto five = state.BestFit(0, 40);
  ASSERT_TRUE(five.has_value());
  EXPECT_EQ(five->shares.front().node, 0);
  EXPECT_EQ(five->shares.back().node, 4);
}

TEST(SlurmTopology, TreeOfNvl72TraysHasOneNodeDomains) {
  const ClusterTopology t = ReadConf(kManPageTree, "GB300");
  EXPECT_EQ(t.types[0].fabric.gpus_per_node, 4);
  EXPECT_EQ(t.types[0].nodes_per_domain(), 1);  // a tree names no NVLink domain: use blocks for racks
  EXPECT_EQ(t.domains, 18);
}

// ---- topology/block ----

// Two GB300 NVL72 racks: blocks of 18 four-GPU trays.
constexpr const char* kNvl72Blocks = R"(# topology/block: one block per NVL72 rack
BlockName=rack1 Nodes=gb[001-018]
BlockName=rack2 Nodes=gb[019-036]
BlockSizes=18,36
)";

TEST(SlurmTopology, Nvl72BlocksAreNvlinkDomains) {
  const SlurmTopology conf = ReadSlurmTopology(kNvl72Blocks, "topology.conf");
  EXPECT_TRUE(conf.block);
  EXPECT_EQ(conf.block_sizes, (std::vector<int64_t>{18, 36}));
  const ClusterTopology t = ReadConf(kNvl72Blocks, "GB300");
  const NodeType& ty = t.types[0];
  EXPECT_EQ(ty.count, 36);
  EXPECT_EQ(ty.fabric.gpus_per_node, 4);
  EXPECT_EQ(ty.fabric.nvlink_domain, 72);
  EXPECT_EQ(ty.nodes_per_domain(), 18);
  EXPECT_EQ(t.domains, 2);
  EXPECT_EQ(t.leaves, 1);  // GB300's reference fabric gives no leaf size: the blocks share one network
  EXPECT_EQ(t.total_gpus, 144);
  EXPECT_EQ(t.nodes[17].domain, 0);
  EXPECT_EQ(t.nodes[18].domain, 1);
  EXPECT_EQ(t.node_names[18], "gb019");
  EXPECT_EQ(t.Describe(), "36 nodes of 4 GB300 (144 GPUs), NVLink domains of 18 nodes, one leaf");
}

TEST(SlurmTopology, UnevenBlocksAndTheManPageBlockExample) {
  const ClusterTopology t = ReadConf("BlockName=b1 Nodes=n[01-18]\nBlockName=b2 Nodes=n[19-30]\n", "GB300");
  EXPECT_EQ(t.types[0].domain_nodes, (std::vector<int>{18, 12}));
  EXPECT_EQ(t.nodes[29].domain, 1);
  EXPECT_EQ(t.Describe(), "30 nodes of 4 GB300 (120 GPUs), NVLink domains of 12 to 18 nodes, one leaf");
  // topology.conf(5)'s topology/block example: four blocks of four nodes.
  const ClusterTopology m = ReadConf(R"(BlockName=block1 Nodes=node[01-04]
BlockName=block2 Nodes=node[05-08]
BlockName=block3 Nodes=node[09-12]
BlockName=block4 Nodes=node[13-16]
BlockSizes=4,16
)");
  EXPECT_EQ(m.domains, 4);
  EXPECT_EQ(m.types[0].nodes_per_domain(), 4);
  EXPECT_EQ(m.types[0].fabric.nvlink_domain, 32);  // four 8-GPU B300 nodes per block
}

// ---- Broken input ----

TEST(SlurmTopology, BrokenInputNamesFileLineAndWhat) {
  EXPECT_EQ(ConfError("SwitchName=s0 Nodes=n[1-2] Bogus=1\n"),
            "topology.conf:1: unknown key 'Bogus' (known here: SwitchName, Switches, Nodes, LinkSpeed)");
  EXPECT_EQ(ConfError("SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Switches=s[0-1]\n"),
            "topology.conf:2: switch 's1' lists switch 's1', which is above it: the Switches= lists form a cycle");
  EXPECT_EQ(ConfError("SwitchName=s0 Nodes=n[1-2]\nSwitchName=top Switches=s[0-1]\n"),
            "topology.conf:2: switch 'top' lists switch 's1', which no SwitchName= line defines");
  EXPECT_EQ(ConfError("SwitchName=s0 Nodes=n[1-3]\nSwitchName=s1 Nodes=n[3-4]\n"),
            "topology.conf:2: switch 's1': node 'n3' is already in switch 's0' (line 1): a node belongs to one switch");
  EXPECT_EQ(ConfError("SwitchName=s0 Nodes=n[5-1]\n"),
            "topology.conf:1: switch 's0' Nodes=: hostlist 'n[5-1]': range '5-1' is reversed");
  EXPECT_EQ(ConfError("SwitchName=s0 Nodes=n[0-99999999999]\n"),
            "topology.conf:1: switch 's0' Nodes=: hostlist 'n[0-99999999999]' takes the cluster beyond 131072 nodes");
  EXPECT_EQ(ConfError("SwitchName=s0 Nodes=n[1-4\n"),
            "topology.conf:1: switch 's0' Nodes=: hostlist 'n[1-4': unterminated '['");
  EXPECT_EQ(ConfError("SwitchName=s0\n"),
            "topology.conf:1: switch 's0' has neither Nodes= nor Switches= (a switch lists its children)");
  EXPECT_EQ(ConfError("SwitchName=s0 Nodes=a Switches=s1\nSwitchName=s1 Nodes=b\n"),
            "topology.conf:1: switch 's0' has both Nodes= and Switches= (its children are either nodes or switches)");
  EXPECT_EQ(ConfError("SwitchName=s0 Nodes=a\nSwitchName=s0 Nodes=b\n"),
            "topology.conf:2: switch 's0' is already defined at line 1");
  EXPECT_EQ(ConfError("SwitchName=s0 Nodes=a\nBlockName=b1 Nodes=b\n"),
            "topology.conf:2: a block line in a file of switches: a topology.conf here describes switches "
            "(topology/tree) or blocks (topology/block), not both");
  EXPECT_EQ(ConfError("SwitchName=s0 Nodes=a LinkSpeed=fast\n"),
            "topology.conf:1: switch 's0': LinkSpeed must be a non-negative integer, got 'fast'");
  EXPECT_EQ(ConfError("SwitchName=s0 Nodes\n"), "topology.conf:1: expected KEY=VALUE, got 'Nodes'");
  EXPECT_EQ(ConfError("BlockName=b1\n"), "topology.conf:1: block 'b1' has no Nodes= (a block lists its nodes)");
  EXPECT_EQ(ConfError("BlockSizes=18,x\n"),
            "topology.conf:1: BlockSizes must be node counts from 1 to 131072 separated by commas, got '18,x'");
  EXPECT_EQ(ConfError("BlockSizes=18\n"),
            "topology.conf: BlockSizes= but no BlockName= line (a topology.conf of blocks lists them)");
}

TEST(SlurmTopology, CycleThroughSeveralSwitchesAndEmptyFiles) {
  EXPECT_EQ(ConfError("SwitchName=a Switches=b\nSwitchName=b Switches=c\nSwitchName=c Switches=a\n"),
            "topology.conf:3: switch 'c' lists switch 'a', which is above it: the Switches= lists form a cycle");
  // An empty file is no topology.conf: ReadClusterFile reads it as TOML and says what is missing.
  EXPECT_FALSE(IsSlurmTopology(""));
  EXPECT_FALSE(IsSlurmTopology("# only a comment\n\n"));
  EXPECT_EQ(ConfError(""), "topology.conf: no [[nodes]] table (one per node type)");
  EXPECT_EQ(InputErrorOf([] { ReadSlurmTopology("# nothing\n", "t.conf"); }),
            "t.conf: no SwitchName= or BlockName= line (a topology.conf lists the network)");
}

TEST(SlurmTopology, GpuIsRequiredAndLookedUp) {
  EXPECT_EQ(ConfError(kManPageTree, ""),
            "topology.conf: a Slurm topology.conf names no GPU: give the nodes' GPU with --gpu NAME (`paratune gpus` "
            "lists them)");
  EXPECT_CONTAINS(ConfError(kManPageTree, "Z9000"), "unknown GPU 'Z9000'");
}

// The fuzz target's topology.conf seeds read (on GB300 nodes, as the target reads them).
TEST(SlurmTopology, FuzzSeedsRead) {
  const std::string dir = std::string(PARATUNE_SOURCE_DIR) + "/fuzz/corpus/cluster_file/";
  const ClusterTopology tree =
      ReadClusterFile(SlurmCatalog(), ReadFile(dir + "slurm_tree.conf"), "slurm_tree.conf", "GB300");
  EXPECT_EQ(tree.types[0].leaf_domains, (std::vector<int>{6, 5, 4}));
  EXPECT_EQ(tree.node_names[10], "login1");
  EXPECT_EQ(tree.node_names[11], "rack1-node01");
  EXPECT_EQ(tree.node_names[14], "rack2-node02");
  const ClusterTopology blocks =
      ReadClusterFile(SlurmCatalog(), ReadFile(dir + "slurm_blocks.conf"), "slurm_blocks.conf", "GB300");
  EXPECT_EQ(blocks.domains, 2);
  EXPECT_EQ(blocks.total_gpus, 144);
}

}  // namespace
}  // namespace paratune
