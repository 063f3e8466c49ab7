#include "validate/cross_validation.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hardware/hardware_catalog.h"
#include "util/error.h"
#include "util/file.h"
#include "util/test_util.h"
#include "validate/stack_map.h"

namespace paratune {
namespace {

constexpr const char* kDev2Csv = "validation/published_runs_dev2.csv";

std::vector<PublishedRun> Dev2Sources(const std::string& csv, const std::vector<std::string>& sources) {
  std::vector<PublishedRun> runs = ReadPublishedRuns(ReadFile(csv), csv, HardwareCatalog::BuiltIn());
  std::erase_if(runs, [&](const PublishedRun& r) {
    return std::find(sources.begin(), sources.end(), r.source) == sources.end();
  });
  return runs;
}

const PublishedRun& Row(const std::vector<PublishedRun>& runs, const std::string& id) {
  return *std::find_if(runs.begin(), runs.end(), [&](const PublishedRun& r) { return r.id == id; });
}

// torchtitan's rows are all Hopper, torchao's all Blackwell: held out, each source has no other
// source on its generation, so it is predicted with the starting values: exactly what validate
// gives those rows with the built-in calibration.
TEST(CrossValidation, ASourceAloneOnItsGenerationIsPredictedWithTheStartingValues) {
  PARATUNE_SHARED_OR_SKIP(csv, kDev2Csv);
  const std::vector<PublishedRun> runs = Dev2Sources(csv, {"torchtitan", "torchao-mx-formats"});
  const CrossValidation cv = CrossValidateBySource(runs, 1);
  ASSERT_EQ(cv.sources.size(), 2u);
  EXPECT_EQ(cv.sources[0].source, "torchtitan");
  EXPECT_EQ(cv.sources[0].uncovered_generations, std::vector<std::string>{"hopper"});
  EXPECT_EQ(cv.sources[1].uncovered_generations, std::vector<std::string>{"blackwell"});
  std::vector<PublishedRun> titan = Dev2Sources(csv, {"torchtitan"});
  const ValidationReport direct = Validate(titan);
  EXPECT_EQ(cv.sources[0].held_out.n, 12);
  EXPECT_DOUBLE_EQ(cv.sources[0].held_out.mean, direct.overall.mean);
  EXPECT_EQ(cv.held_out.n, 17);
  // In sample each generation is fitted on its own rows: never worse than the starting values.
  EXPECT_LE(cv.sources[0].in_sample.mean, cv.sources[0].held_out.mean + 1e-12);
}

TEST(CrossValidation, NeedsTwoSources) {
  PARATUNE_SHARED_OR_SKIP(csv, kDev2Csv);
  EXPECT_THROW(CrossValidateBySource(Dev2Sources(csv, {"torchtitan"}), 1), InputError);
}

// The stack each development row ran, from its source and release (validate/stack_map.cc).
TEST(StackMap, RowsGetTheirStacksFeatures) {
  PARATUNE_SHARED_OR_SKIP(csv, kDev2Csv);
  const std::vector<PublishedRun> runs = Dev2Sources(csv, {"torchtitan", "Megatron-Bridge-perf-summary"});
  const PublishedRun& eager = Row(runs, "TT-T1-01");
  EXPECT_EQ(eager.layout.stack.framework, Framework::kTorchtitan);
  EXPECT_EQ(eager.layout.stack.kernels, Kernels::kEager);
  EXPECT_EQ(eager.layout.attention_kernel, AttentionKernel::kSdpa);
  EXPECT_EQ(Row(runs, "TT-T1-02").layout.stack.kernels, Kernels::kCompiled);
  EXPECT_TRUE(Row(runs, "TT-T4-02").layout.overlap_tp_comm);  // "2D + AsyncTP"
  EXPECT_FALSE(Row(runs, "TT-T4-01").layout.overlap_tp_comm);
  const PublishedRun& b200 = Row(runs, "MB2511-B200-11");  // 25.11 Qwen3 on B200
  EXPECT_EQ(b200.layout.stack.cuda_graphs, CudaGraphs::kStatic);
  EXPECT_EQ(b200.layout.stack.moe_dispatcher, MoeDispatcher::kAllToAll);
  const PublishedRun& gb300 = Row(runs, "MBB3-2608-GB300-03");  // 26.08 Qwen3 MXFP8 on GB300
  EXPECT_EQ(gb300.layout.stack.cuda_graphs, CudaGraphs::kFull);
  EXPECT_EQ(gb300.layout.stack.moe_dispatcher, MoeDispatcher::kHybridEp);
  EXPECT_TRUE(gb300.layout.overlap_ep_comm);
  EXPECT_TRUE(gb300.layout.stack.fused_grouped_mlp);  // cutedsl_fused_grouped_mlp
  EXPECT_TRUE(gb300.layout.fp8_attention);            // fp8_dot_product_attention
  EXPECT_FALSE(Row(runs, "MBB3-2511-GB300-06").layout.fp8_attention);
  EXPECT_FALSE(gb300.layout.grad_reduce_in_fp32);
  EXPECT_EQ(Row(runs, "MBB3-2511-GB300-06").layout.stack.cuda_graphs, CudaGraphs::kStatic);  // 25.11: not yet
  EXPECT_EQ(Row(runs, "MB2511-GB200-13").layout.stack.cuda_graphs, CudaGraphs::kFull);       // Llama 3 8B
  // GPT-OSS's recompute_modules [layernorm, moe_act] run as selective recomputation from 26.02;
  // 25.11's scripts set the modules without a granularity (no recomputation).
  const uint8_t norm_act =
      RecomputeModuleBit(RecomputeModule::kLayernorm) | RecomputeModuleBit(RecomputeModule::kMoeAct);
  for (const char* id : {"MBARC-2604-GB200-02", "MBARC-2604-B200-01", "MBARC-2604-H100-01", "MBARC-2602-B200-02"}) {
    EXPECT_EQ(Row(runs, id).layout.recompute, Recompute::kSelective) << id;
    EXPECT_EQ(Row(runs, id).layout.recompute_modules, norm_act) << id;
  }
  EXPECT_EQ(Row(runs, "MB2511-B200-10").layout.recompute, Recompute::kNone);
  EXPECT_EQ(Row(runs, "MB2608-GB200-02").layout.recompute, Recompute::kNone);  // FP8-MX full-iteration recipe
  // Llama 3 70B's Megatron-FSDP recipes offload activations: GB300 FP8-CS 20 layers, GB200 40.
  EXPECT_EQ(Row(runs, "MBB3-260401-GB300-01").layout.offload_layers, 20);
  EXPECT_EQ(Row(runs, "MB260401-GB200-02").layout.offload_layers, 40);
  EXPECT_EQ(Row(runs, "MB2511-GB200-14").layout.offload_layers, 40);
  EXPECT_EQ(Row(runs, "MBB3-260401-GB300-02").layout.offload_layers, 0);  // pp 4, DDP
}

}  // namespace
}  // namespace paratune
