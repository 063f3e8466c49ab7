// Tests of the speed model: a packed placement runs at speed 1, a split one at the ratio of the
// two step compositions (computed here independently, on ClusterSpecs built from the catalog).
#include "scheduling/speed_model.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "hardware/hardware_catalog.h"
#include "model/catalog.h"
#include "plan/planner.h"
#include "step/compose.h"
#include "util/test_util.h"

namespace paratune {
namespace {

const HardwareCatalog& SpeedCatalog() {
  static const HardwareCatalog c = HardwareCatalog::BuiltIn();
  return c;
}

Job ModelJob(const std::string& model, int gpus, int tp, int pp) {
  Job j;
  j.gpus = gpus;
  j.model = model;
  j.tp = tp;
  j.pp = pp;
  return j;
}

Placement On(std::initializer_list<NodeShare> shares) { return Placement{shares}; }

// The step time of tp/pp on `c`, as `paratune estimate` composes it, with the speed model's
// training shape (4096-token sequences, 4 per GPU).
double StepTime(const ClusterSpec& c, int tp, int pp) {
  Training t;
  t.seq = 4096;
  t.global_batch = 4LL * c.gpus;
  Layout l;
  l.tp = tp;
  l.pp = pp;
  EstimateOptions o;
  o.rules.allow_cross_domain_tp = true;
  return ComposeStep(LoadModel("llama-3.1-8b"), c, t, l, o).estimate.step_time_s;
}

TEST(SpeedModel, PackedTp8IsExactlyOneAndSplitIsTheRatioOfTheSteps) {
  for (const char* gpu : {"H100", "B300"}) {
    SCOPED_TRACE(gpu);
    const ClusterTopology topo = TopologyFromFlags(SpeedCatalog(), gpu, 4);
    SpeedModel speed(topo);
    const Job job = ModelJob("llama-3.1-8b", 8, 8, 1);

    const PlacementShape packed = ShapeOf(topo, On({{0, 8}}));
    EXPECT_EQ(packed.nodes, 1);
    const Pricing& one = speed.Price(job, packed);
    EXPECT_TRUE(one.modelled);
    EXPECT_EQ(one.slowdown, 1.0);
    EXPECT_EQ(one.layout, "tp 8 pp 1 dp 1");
    EXPECT_EQ(one.note, "");

    const PlacementShape split = ShapeOf(topo, On({{0, 4}, {1, 4}}));
    EXPECT_EQ(split.aligned_per_node, 4);
    const Pricing& two = speed.Price(job, split);
    EXPECT_TRUE(two.modelled);
    // Independently: the 8 ranks on the reference system, and on nodes of 4 GPUs whose NVLink
    // domain is the node, each GPU keeping its own NIC (data/gpus.toml: one NIC per GPU).
    const ClusterSpec ref = SpeedCatalog().Cluster(gpu, 8);
    ClusterSpec halves = ref;
    halves.fabric.gpus_per_node = 4;
    halves.fabric.nics_per_node = 4;
    halves.fabric.nvlink_domain = 4;
    ASSERT_DOUBLE_EQ(halves.fabric.net_bytes_per_s(), ref.fabric.net_bytes_per_s());
    const double expected = StepTime(halves, 8, 1) / StepTime(ref, 8, 1);
    EXPECT_GT(expected, 1.05);  // TP all-reduces over 50-100 GB/s NICs instead of NVLink
    EXPECT_DOUBLE_EQ(two.slowdown, expected);
    EXPECT_EQ(two.note, "tp 8 over 2 nodes (network instead of NVLink)");
    EXPECT_DOUBLE_EQ(two.mfu, one.mfu / two.slowdown);
    // A units bug would be off by orders of magnitude. An 8B model at tp 8 is a poor layout: on
    // B300 each of its 33.5 MB TP collectives pays NVLink 5's measured latency (8.6 us a step,
    // 24.3 us a call: about 85 us beside 65 us of transfer), 15% MFU since 2026-12-05.
    EXPECT_GT(one.mfu, 0.1);
    EXPECT_LT(one.mfu, 0.8);
  }
}

TEST(SpeedModel, Nvl72TraysOfOneDomainKeepTpOnNvlink) {
  const ClusterTopology topo = TopologyFromFlags(SpeedCatalog(), "GB200", 36);  // two NVL72 racks
  SpeedModel speed(topo);
  const Job job = ModelJob("llama-3.1-8b", 8, 8, 1);
  // Trays 0 and 1 share rack 0's NVLink domain: tp 8 stays on NVLink.
  const Pricing& in = speed.Price(job, ShapeOf(topo, On({{0, 4}, {1, 4}})));
  EXPECT_TRUE(in.modelled);
  EXPECT_EQ(in.slowdown, 1.0);
  EXPECT_EQ(in.note, "");
  // Trays 17 and 18 are in two racks.
  const Pricing& across = speed.Price(job, ShapeOf(topo, On({{17, 4}, {18, 4}})));
  ClusterSpec ref = SpeedCatalog().Cluster("GB200", 8);
  ClusterSpec racks = ref;
  racks.fabric.nvlink_domain = 4;
  EXPECT_DOUBLE_EQ(across.slowdown, StepTime(racks, 8, 1) / StepTime(ref, 8, 1));
  EXPECT_GT(across.slowdown, 1.05);
  EXPECT_EQ(across.note, "tp 8 over 2 NVLink domains (network instead of NVLink)");
}

TEST(SpeedModel, PackedMfuIsTheComposedStepsMfu) {
  const ClusterTopology topo = TopologyFromFlags(SpeedCatalog(), "H100", 2);
  SpeedModel speed(topo);
  const Pricing& p = speed.Price(ModelJob("llama-3.1-8b", 8, 8, 1), ShapeOf(topo, On({{1, 8}})));
  Training t;
  t.seq = 4096;
  t.global_batch = 32;
  Layout l;
  l.tp = 8;
  EXPECT_DOUBLE_EQ(p.mfu, ComposeStep(LoadModel("llama-3.1-8b"), SpeedCatalog().Cluster("H100", 8), t, l).estimate.mfu);
}

TEST(SpeedModel, NoModelOrUnpricedTypeRunsAtTraceSpeed) {
  const HardwareCatalog& hw = SpeedCatalog();
  const ClusterTopology topo = ReadClusterFile(
      hw, "[[nodes]]\ncount = 2\ngpu = \"H100\"\n[[nodes]]\ncount = 2\ngpu = \"T4\"\ngpus_per_node = 8\n", "c.toml");
  SpeedModel speed(topo);
  Job plain;
  plain.gpus = 8;
  const Pricing& a = speed.Price(plain, ShapeOf(topo, On({{0, 4}, {1, 4}})));
  EXPECT_EQ(a.slowdown, 1.0);
  EXPECT_FALSE(a.modelled);
  const Pricing& b = speed.Price(ModelJob("llama-3.1-8b", 8, 8, 1), ShapeOf(topo, On({{2, 4}, {3, 4}})));
  EXPECT_EQ(b.slowdown, 1.0);
  EXPECT_FALSE(b.modelled);
  const Pricing& c = speed.Price(ModelJob("no-such-model", 8, 8, 1), ShapeOf(topo, On({{0, 8}})));
  EXPECT_EQ(c.slowdown, 1.0);
  EXPECT_FALSE(c.modelled);
  EXPECT_EQ(c.note, "model not priced: `model`: unknown model 'no-such-model' (not a file and not in the catalog)");
  // A layout that cannot be composed on this GPU count: tp 3 does not divide 8 GPUs.
  const Pricing& d = speed.Price(ModelJob("llama-3.1-8b", 8, 3, 1), ShapeOf(topo, On({{0, 8}})));
  EXPECT_FALSE(d.modelled);
  EXPECT_EQ(d.slowdown, 1.0);
  EXPECT_CONTAINS(d.note, "model not priced: llama-3.1-8b on 8 GPUs of H100: ");
}

TEST(SpeedModel, CacheHitReturnsTheSameObject) {
  const ClusterTopology topo = TopologyFromFlags(SpeedCatalog(), "H100", 4);
  SpeedModel speed(topo);
  Job a = ModelJob("llama-3.1-8b", 8, 8, 1);
  Job b = a;
  b.id = 7;
  b.name = "another";
  const Pricing& p = speed.Price(a, ShapeOf(topo, On({{0, 4}, {1, 4}})));
  // The same shape on other nodes is the same case.
  const Pricing& q = speed.Price(b, ShapeOf(topo, On({{2, 4}, {3, 4}})));
  EXPECT_EQ(&p, &q);
  EXPECT_EQ(speed.cache_entries(), 1);
  EXPECT_EQ(speed.packed_entries(), 1);
  speed.Price(a, ShapeOf(topo, On({{0, 8}})));
  EXPECT_EQ(speed.cache_entries(), 2);
  EXPECT_EQ(speed.packed_entries(), 1);  // one packed composition serves both shapes
}

TEST(SpeedModel, DataParallelAcrossLeavesPaysTheSpine) {
  // Leaves of 2 nodes; 16 GPUs as tp 8 x dp 2 over two nodes: inside leaf 0, or across leaves 0
  // and 1 where the DP gradient reduction crosses the 2:1 spine.
  for (double over : {2.0, 1.0}) {
    SCOPED_TRACE(over);
    const ClusterTopology topo = ReadClusterFile(
        SpeedCatalog(),
        "[[nodes]]\ncount = 8\ngpu = \"H100\"\nnodes_per_leaf = 2\nspine_oversubscription = " + std::to_string(over) +
            "\n",
        "c.toml");
    SpeedModel speed(topo);
    const Job job = ModelJob("llama-3.1-8b", 16, 8, 1);
    const PlacementShape within = ShapeOf(topo, On({{0, 8}, {1, 8}}));
    const PlacementShape across = ShapeOf(topo, On({{1, 8}, {2, 8}}));
    ASSERT_EQ(within.leaves, 1);
    ASSERT_EQ(across.leaves, 2);
    const Pricing& in = speed.Price(job, within);
    const Pricing& out = speed.Price(job, across);
    EXPECT_EQ(in.slowdown, 1.0);
    EXPECT_EQ(in.layout, "tp 8 pp 1 dp 2");
    ClusterSpec ref = SpeedCatalog().Cluster("H100", 16);
    ref.fabric.nodes_per_leaf = 2;
    ref.fabric.spine_oversubscription = over;
    ClusterSpec spine = ref;
    spine.fabric.nodes_per_leaf = 1;  // the two nodes in two leaves
    const double expected = StepTime(spine, 8, 1) / StepTime(ref, 8, 1);
    EXPECT_DOUBLE_EQ(out.slowdown, std::max(1.0, expected));
    if (over == 2.0) {
      EXPECT_GT(out.slowdown, 1.0);
      EXPECT_EQ(out.note, "dp 2 across 2 leaves (spine 2:1)");
    } else {
      EXPECT_EQ(out.slowdown, 1.0);  // a non-blocking spine costs nothing more than the leaf
    }
  }
}

TEST(SpeedModel, PlannersLayoutForAJobWithoutOne) {
  const ClusterTopology topo = TopologyFromFlags(SpeedCatalog(), "H100", 4);
  SpeedModel speed(topo);
  const Job job = ModelJob("llama-3.1-8b", 16, 0, 0);
  const auto t0 = std::chrono::steady_clock::now();
  const Pricing& packed = speed.Price(job, ShapeOf(topo, On({{0, 8}, {1, 8}})));
  const double cold_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("cold Price (plan + 2 compositions), llama-3.1-8b on 16 H100: %.3f s\n", cold_s);
  EXPECT_TRUE(packed.modelled);
  EXPECT_EQ(packed.slowdown, 1.0);
  EXPECT_FALSE(packed.layout.empty());
  const auto t1 = std::chrono::steady_clock::now();
  const Pricing& scattered = speed.Price(job, ShapeOf(topo, On({{0, 2}, {1, 6}, {2, 6}, {3, 2}})));
  const double warm_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  std::printf("Price of a new shape (1 composition): %.6f s\n", warm_s);
  EXPECT_TRUE(scattered.modelled);
  // Independently: the planner's first layout for the speed model's training shape on two packed
  // nodes, composed there and on 2-GPU "nodes" (the scattered placement keeps 2 ranks of every
  // power-of-two group together, each with its own NIC).
  PlanRequest r;
  r.model = LoadModel("llama-3.1-8b");
  r.cluster = SpeedCatalog().Cluster("H100", 16);
  r.training.seq = 4096;
  r.training.global_batch = 64;
  r.top = 1;
  const Layout planned = Plan(r).ranked.front().layout;
  EstimateOptions o;
  o.rules.allow_cross_domain_tp = true;
  ClusterSpec pairs = r.cluster;
  pairs.fabric.gpus_per_node = 2;
  pairs.fabric.nics_per_node = 2;
  pairs.fabric.nvlink_domain = 2;
  const double on_packed = ComposeStep(r.model, r.cluster, r.training, planned, o).estimate.step_time_s;
  const double on_pairs = ComposeStep(r.model, pairs, r.training, planned, o).estimate.step_time_s;
  // The planner's layout is plain data parallelism with the distributed optimizer (tp 1 pp 1
  // dp 16, ZeRO-1, 4 micro-batches of 1): the gradients accumulate over the micro-batches and
  // are reduce-scattered during the last backward; with 2 instead of 8 GPUs per node, less of
  // the reduction stays on NVLink and each NIC carries more, and the part that outlasts that
  // backward is exposed.
  EXPECT_EQ(packed.layout, "tp 1 pp 1 dp 16");
  EXPECT_EQ(planned.zero, 1);
  EXPECT_GT(on_pairs, on_packed * 1.01);
  EXPECT_DOUBLE_EQ(scattered.slowdown, on_pairs / on_packed);
  EXPECT_EQ(scattered.note, "dp 16 with 2 instead of 8 GPUs per node on the network");
  EXPECT_EQ(speed.packed_entries(), 1);
}

}  // namespace
}  // namespace paratune
