#include "scheduling/cluster_state.h"

#include <gtest/gtest.h>

#include "scheduling/cluster_test_util.h"

namespace paratune {
namespace {

using testing::SmallCluster;

TEST(ClusterState, BestFitTakesTheFullestNodeThatHoldsTheJob) {
  ClusterTopology topo = SmallCluster(3);
  ClusterState s(topo);
  s.Take(Placement{{{0, 6}}});  // node 0: 2 free
  s.Take(Placement{{{1, 3}}});  // node 1: 5 free
  auto p = s.BestFit(0, 2);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->shares.size(), 1u);
  EXPECT_EQ(p->shares[0].node, 0);
  p = s.BestFit(0, 4);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->shares[0].node, 1);
  p = s.BestFit(0, 8);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->shares[0].node, 2);
  EXPECT_EQ(s.partial_nodes(), 2);
  EXPECT_EQ(s.free_total(), 2 + 5 + 8);
  // FreeBelow(6): GPUs on nodes with fewer than 6 free: 2 + 5.
  EXPECT_EQ(s.FreeBelow(0, 6), 7);
  EXPECT_EQ(s.FreeBelow(0, 3), 2);
}

TEST(ClusterState, FirstFitSplitsWhereBestFitWaits) {
  ClusterTopology topo = SmallCluster(2);
  ClusterState s(topo);
  s.Take(Placement{{{0, 4}}});
  s.Take(Placement{{{1, 4}}});
  EXPECT_FALSE(s.BestFit(0, 8));
  auto ff = s.FirstFit(0, 8);
  ASSERT_TRUE(ff);
  ASSERT_EQ(ff->shares.size(), 2u);
  EXPECT_EQ(ff->shares[0].gpus, 4);
  EXPECT_EQ(ff->shares[1].gpus, 4);
  auto split = s.SplitFit(0, 6);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->gpus(), 6);
  EXPECT_FALSE(s.FirstFit(0, 9));
}

TEST(ClusterState, MultiNodeJobsStayInsideTheFullestLeafThatHoldsThem) {
  // 8 nodes, leaves of 4. Leaf 0 has 3 whole nodes free, leaf 1 all 4.
  ClusterTopology topo = SmallCluster(8, 8, 4);
  ASSERT_EQ(topo.leaves, 2);
  ClusterState s(topo);
  s.Take(Placement{{{0, 1}}});
  auto p = s.BestFit(0, 20);  // 2 whole nodes + 4 on a third
  ASSERT_TRUE(p);
  ShapeOf(topo, *p);
  for (const auto& share : p->shares) EXPECT_LT(share.node, 4) << "leaf 0 holds the job and is the fuller leaf";
  EXPECT_EQ(p->gpus(), 20);
  // The remainder goes to the partly free node 0 (7 free), not to a third whole node.
  bool on_zero = false;
  for (const auto& share : p->shares) on_zero = on_zero || (share.node == 0 && share.gpus == 4);
  EXPECT_TRUE(on_zero);
  // 40 GPUs = 5 nodes: more than a leaf, so two leaves, the fewest possible.
  auto big = s.BestFit(0, 40);
  ASSERT_TRUE(big);
  PlacementShape shape = ShapeOf(topo, *big);
  EXPECT_EQ(shape.nodes, 5);
  EXPECT_EQ(shape.leaves, 2);
  EXPECT_FALSE(shape.split());
}

TEST(ClusterState, PartialDomainsCountNvlinkDomainsNeitherFullNorEmpty) {
  // NVL72-like: 4-GPU trays, 18 per domain, 2 domains.
  ClusterTopology topo = SmallCluster(36, 4, 0, 18);
  ASSERT_EQ(topo.domains, 2);
  ClusterState s(topo);
  auto p = s.BestFit(0, 64);  // 16 trays inside one domain
  ASSERT_TRUE(p);
  PlacementShape shape = ShapeOf(topo, *p);
  EXPECT_EQ(shape.domains, 1);
  EXPECT_EQ(shape.nodes, 16);
  s.Take(*p);
  EXPECT_EQ(s.partial_domains(), 1);
  EXPECT_EQ(s.partial_nodes(), 0);
  s.Release(*p);
  EXPECT_EQ(s.partial_domains(), 0);
  EXPECT_EQ(s.free_total(), 144);
}

TEST(ClusterState, GpuTypesMatchByNameOrAnyOfTheAlternatives) {
  NodeType a, b;
  a.name = a.gpu = "V100M16";
  b.name = b.gpu = "V100M32";
  a.count = b.count = 1;
  a.fabric.gpus_per_node = b.fabric.gpus_per_node = 8;
  ClusterTopology topo = BuildTopology({a, b});
  ClusterState s(topo);
  EXPECT_EQ(s.TypesFor(""), (std::vector<int>{0, 1}));
  EXPECT_EQ(s.TypesFor("v100m32"), (std::vector<int>{1}));
  EXPECT_EQ(s.TypesFor("V100M16|V100M32"), (std::vector<int>{0, 1}));
  EXPECT_TRUE(s.TypesFor("T4").empty());
}

TEST(Placement, ShapeSaysWhichGroupsStayInsideANode) {
  ClusterTopology topo = SmallCluster(4, 8, 2);
  PlacementShape packed = ShapeOf(topo, Placement{{{0, 8}, {1, 8}}});
  EXPECT_EQ(packed.aligned_per_node, 8);
  EXPECT_FALSE(packed.split());
  EXPECT_EQ(packed.leaves, 1);
  PlacementShape half = ShapeOf(topo, Placement{{{0, 4}, {2, 4}}});
  EXPECT_EQ(half.nodes, 2);
  EXPECT_EQ(half.min_nodes, 1);
  EXPECT_TRUE(half.split());
  EXPECT_EQ(half.aligned_per_node, 4);
  EXPECT_EQ(half.leaves, 2);
  // 5 + 3: a pair of ranks straddles the nodes, so only single ranks stay inside one.
  EXPECT_EQ(ShapeOf(topo, Placement{{{0, 5}, {1, 3}}}).aligned_per_node, 1);
  EXPECT_EQ(ShapeOf(topo, Placement{{{0, 6}, {1, 2}}}).aligned_per_node, 2);
}

}  // namespace
}  // namespace paratune
