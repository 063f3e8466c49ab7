#include "layout/constraints.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hardware/hardware_catalog.h"
#include "model/catalog.h"

namespace paratune {
namespace {

std::vector<std::string> Rules(const std::string& model, int gpus, Layout l, Training t = {},
                               const std::string& gpu = "B300", ConstraintOptions o = {}) {
  const ModelSpec m = LoadModel(model);
  ClusterSpec c = HardwareCatalog::BuiltIn().Cluster(gpu, gpus);
  std::vector<std::string> ids;
  for (const ConstraintViolation& v : CheckLayout(m, c, t, l, o)) ids.push_back(v.rule);
  return ids;
}

bool Has(const std::vector<std::string>& v, const std::string& id) {
  return std::find(v.begin(), v.end(), id) != v.end();
}

TEST(LayoutConstraints, ValidLayoutDerivesDp) {
  Layout l;
  l.tp = 8;
  l.pp = 2;
  const ModelSpec m = LoadModel("llama-3.1-70b");
  ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("B300", 64);
  Training t;
  EXPECT_TRUE(CheckLayout(m, c, t, l).empty());
  EXPECT_EQ(l.dp, 4);
  EXPECT_EQ(l.micro_batches(t), 64);
}

TEST(LayoutConstraints, EachRuleFires) {
  Layout l;
  l.tp = 3;
  EXPECT_TRUE(Has(Rules("llama-3.1-70b", 24, l), "tp-divides-heads"));
  l = Layout{};
  l.tp = 16;  // 64 heads, 8 KV heads
  EXPECT_TRUE(Has(Rules("llama-3.1-70b", 64, l), "tp-divides-kv-heads"));
  EXPECT_TRUE(Has(Rules("llama-3.1-70b", 64, l), "tp-in-nvlink-domain"));
  ConstraintOptions allow;
  allow.allow_cross_domain_tp = true;
  EXPECT_FALSE(Has(Rules("llama-3.1-70b", 64, l, {}, "B300", allow), "tp-in-nvlink-domain"));
  l = Layout{};
  l.pp = 7;
  EXPECT_TRUE(Has(Rules("llama-3.1-70b", 56, l), "pp-divides-layers"));
  l = Layout{};
  l.pp = 4;
  l.vp = 3;  // 80 layers, 12 chunks
  EXPECT_TRUE(Has(Rules("llama-3.1-70b", 32, l), "pp-divides-layers"));
  l = Layout{};
  l.tp = 8;
  EXPECT_TRUE(Has(Rules("llama-3.1-70b", 12, l), "world-divisible"));
  l = Layout{};
  l.ep = 2;
  EXPECT_TRUE(Has(Rules("llama-3.1-70b", 32, l), "ep-needs-moe"));
  l = Layout{};
  l.ep = 3;
  EXPECT_TRUE(Has(Rules("mixtral-8x7b", 24, l), "ep-divides-experts"));
  l = Layout{};
  l.mbs = 3;
  EXPECT_TRUE(Has(Rules("llama-3.1-8b", 8, l), "batch-divisible"));
  l = Layout{};
  l.vp = 2;
  EXPECT_TRUE(Has(Rules("llama-3.1-8b", 8, l), "vp-needs-pp"));
  l = Layout{};
  l.cp = 2;
  Training odd;
  odd.seq = 8190;
  EXPECT_TRUE(Has(Rules("llama-3.1-8b", 8, l, odd), "cp-divides-seq"));
  l = Layout{};
  Training fp8;
  fp8.precision = Precision::kFp8;
  EXPECT_TRUE(Has(Rules("llama-3.1-8b", 8, l, fp8, "A100-80GB"), "precision-supported"));
  l = Layout{};
  l.tp = 0;
  EXPECT_TRUE(Has(Rules("llama-3.1-8b", 8, l), "positive-size"));
  l = Layout{};
  l.zero = 4;
  EXPECT_TRUE(Has(Rules("llama-3.1-8b", 8, l), "zero-stage"));
  l = Layout{};
  l.zero = 3;
  l.fp32_shards = true;
  EXPECT_FALSE(Has(Rules("llama-3.1-8b", 8, l), "fp32-shards-need-fp32-states"));
  l.optimizer_states = OptimizerStates::kBf16;
  EXPECT_TRUE(Has(Rules("llama-3.1-8b", 8, l), "fp32-shards-need-fp32-states"));
  // EP x expert-TP must tile the tp*cp*dp ranks: 8 experts, ep 8 with etp 8 on 32 GPUs of tp 1.
  l = Layout{};
  l.ep = 8;
  l.etp = 8;
  EXPECT_TRUE(Has(Rules("mixtral-8x7b", 32, l), "ep-fits-world"));
}

// Activation offloading as Megatron-Core accepts it: 0 <= N < layers, pp 1, no recomputation,
// and a fabric whose host link is known.
TEST(LayoutConstraints, OffloadLayersNeedPpOneNoRecomputeAndAHostLink) {
  const ModelSpec m = LoadModel("llama-3.1-8b");  // 32 layers
  const ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("H100-SXM", 8);
  const Training t;
  const auto ids = [&](const Layout& l, const ClusterSpec& cl) {
    std::vector<std::string> v;
    Layout copy = l;
    for (const ConstraintViolation& r : CheckLayout(m, cl, t, copy)) v.push_back(r.rule + ": " + r.message);
    return v;
  };
  Layout l;
  l.offload_layers = 31;
  EXPECT_TRUE(ids(l, c).empty());
  l.offload_layers = 32;
  EXPECT_EQ(ids(l, c), std::vector<std::string>{"offload-layers: `offload_layers` must be between 0 and the model's "
                                                "layers - 1 (31), got 32"});
  l.offload_layers = -1;
  EXPECT_EQ(ids(l, c).size(), 1u);
  l.offload_layers = 8;
  l.pp = 2;
  EXPECT_EQ(ids(l, c),
            std::vector<std::string>{"offload-layers: `offload_layers` (8) needs pp 1 (Megatron-Core offloads "
                                     "no pipelined model), got pp 2"});
  l.pp = 1;
  l.recompute = Recompute::kSelective;
  EXPECT_EQ(ids(l, c), std::vector<std::string>{"offload-layers: `offload_layers` (8) and `recompute` (selective) "
                                                "exclude each other in Megatron-Core"});
  l.recompute = Recompute::kNone;
  ClusterSpec no_host = c;
  no_host.fabric.host_link_bytes_per_s = 0;
  EXPECT_EQ(ids(l, no_host).size(), 1u);
  l.offload_layers = 0;
  EXPECT_TRUE(ids(l, no_host).empty());
}

TEST(LayoutConstraints, AllViolationsReportedTogether) {
  Layout l;
  l.tp = 3;
  l.pp = 7;
  const auto ids = Rules("llama-3.1-70b", 21, l);
  EXPECT_TRUE(Has(ids, "tp-divides-heads"));
  EXPECT_TRUE(Has(ids, "pp-divides-layers"));
  const ModelSpec m = LoadModel("llama-3.1-70b");
  ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("B300", 21);
  Training t;
  const std::string s = DescribeViolations(CheckLayout(m, c, t, l));
  EXPECT_NE(s.find("heads (64) are not divisible by tp (3)"), std::string::npos) << s;
  EXPECT_NE(s.find("layers (80) are not divisible by pp*vp"), std::string::npos) << s;
  EXPECT_EQ(s.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace paratune
