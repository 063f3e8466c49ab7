#include "analysis/kernel_sequences.h"

#include <gtest/gtest.h>

#include "analysis/test_events.h"
#include "trace/trace_set.h"
#include "util/test_util.h"

namespace paratune {
namespace {

using test_events::At;

// One rank, times in µs. Main thread (tid 1): ProfilerStep#1 [0, 1000) holds, at depth 1,
// aten::linear A [10, 100) and B [110, 200), each through aten::addmm launching a memset, a GEMM
// and a bias kernel (GPU order memset, gemm, bias: 5 + 50 + 10 us); aten::linear C [210, 300)
// launching two kernels (fewer than 3); aten::linear E [310, 360) launching gemm, bias, memset
// in that GPU order; aten::relu [400, 480) holding aten::linear D (depth 2, not a root). The
// backward thread (tid 2, it has an autograd:: event) starts at depth 0, hung under the
// ProfilerStep (depth 1): its "aten::linear_backward" [500, 560) launches three GEMMs (20 us
// each) and is a root beside A, B and E.
RankTrace SequenceRank() {
  RankTrace t;
  t.names = {"ProfilerStep#1",
             "aten::linear",
             "aten::addmm",
             "cudaLaunchKernel",
             "cudaMemsetAsync",
             "Memset (Device)",
             "sm90_gemm",
             "bias_kernel",
             "aten::relu",
             "aten::linear_backward",
             "autograd::engine::evaluate_function: AddmmBackward0"};
  auto cpu = [&](uint32_t name, EventKind kind, int64_t ts, int64_t dur, int32_t tid, int64_t corr = -1) {
    TraceEvent e = At(name, kind, ts, dur, -1, corr);
    e.tid = tid;
    t.events.push_back(e);
  };
  auto gpu = [&](uint32_t name, EventKind kind, int64_t ts, int64_t dur, int64_t corr) {
    t.events.push_back(At(name, kind, ts, dur, 7, corr));
  };
  const auto op = EventKind::kCpuOp, rt = EventKind::kRuntime, k = EventKind::kKernel, ms = EventKind::kMemset;
  cpu(0, EventKind::kUserAnnotation, 0, 1000, 1);
  int64_t corr = 1;
  for (int64_t start : {10, 110}) {  // A, B
    cpu(1, op, start, 90, 1);
    cpu(2, op, start + 2, 80, 1);
    cpu(3, rt, start + 4, 2, 1, corr), gpu(6, k, 1000 * start + 5, 50, corr++);
    cpu(3, rt, start + 10, 2, 1, corr), gpu(7, k, 1000 * start + 60, 10, corr++);
    cpu(4, rt, start + 20, 2, 1, corr), gpu(5, ms, 1000 * start, 5, corr++);
  }
  cpu(1, op, 210, 90, 1);  // C: two kernels
  cpu(3, rt, 220, 2, 1, corr), gpu(6, k, 210000, 50, corr++);
  cpu(3, rt, 230, 2, 1, corr), gpu(7, k, 210060, 10, corr++);
  cpu(1, op, 310, 50, 1);  // E: gemm, bias, memset
  cpu(3, rt, 320, 2, 1, corr), gpu(6, k, 310000, 40, corr++);
  cpu(3, rt, 330, 2, 1, corr), gpu(7, k, 310050, 10, corr++);
  cpu(4, rt, 340, 2, 1, corr), gpu(5, ms, 310070, 5, corr++);
  cpu(8, op, 400, 80, 1);  // relu holding D
  cpu(1, op, 410, 60, 1);
  for (int i = 0; i < 3; ++i) cpu(3, rt, 420 + 10 * i, 2, 1, corr), gpu(6, k, 420000 + 100 * i, 30, corr++);
  cpu(9, op, 500, 60, 2);  // the backward thread
  for (int i = 0; i < 3; ++i) cpu(3, rt, 510 + 10 * i, 2, 2, corr), gpu(6, k, 500000 + 100 * i, 20, corr++);
  cpu(10, op, 600, 50, 2);
  return t;
}

TEST(KernelSequences, OutermostOperatorsPatternsByCount) {
  const std::vector<KernelSequence> q = FrequentKernelSequences(SequenceRank(), "aten::linear", 3, 10);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[0].pattern, (std::vector<std::string>{"aten::linear", "Memset (Device)", "sm90_gemm", "bias_kernel"}));
  EXPECT_EQ(q[0].count, 2);
  EXPECT_NEAR(q[0].gpu_time_s, 2 * 65e-6, 1e-12);
  EXPECT_NEAR(q[0].cpu_time_s, 2 * 90e-6, 1e-12);
  // Count 1 each, by text: "aten::linear_backward|..." before "aten::linear|..." ('_' is 0x5f,
  // '|' 0x7c).
  EXPECT_EQ(q[1].pattern, (std::vector<std::string>{"aten::linear_backward", "sm90_gemm", "sm90_gemm", "sm90_gemm"}));
  EXPECT_NEAR(q[1].gpu_time_s, 60e-6, 1e-12);
  EXPECT_NEAR(q[1].cpu_time_s, 60e-6, 1e-12);
  EXPECT_EQ(q[2].pattern, (std::vector<std::string>{"aten::linear", "sm90_gemm", "bias_kernel", "Memset (Device)"}));
  EXPECT_NEAR(q[2].gpu_time_s, 55e-6, 1e-12);
  // Top 1; a shorter minimum lets C in (count 1, two kernels); no match, no patterns.
  EXPECT_EQ(FrequentKernelSequences(SequenceRank(), "aten::linear", 3, 1).size(), 1u);
  EXPECT_EQ(FrequentKernelSequences(SequenceRank(), "aten::linear", 2, 10).size(), 4u);
  EXPECT_TRUE(FrequentKernelSequences(SequenceRank(), "aten::conv", 3, 10).empty());
  // The nested linear D counts once its ancestors are not candidates: relu's subtree as root.
  const std::vector<KernelSequence> relu = FrequentKernelSequences(SequenceRank(), "aten::relu", 3, 10);
  ASSERT_EQ(relu.size(), 1u);
  EXPECT_EQ(relu[0].pattern.size(), 4u);
  EXPECT_NEAR(relu[0].gpu_time_s, 90e-6, 1e-12);
}

// Without an autograd:: event the second thread is not the backward one: its operator stays at
// depth 0, the only root.
TEST(KernelSequences, AnUnlinkedThreadKeepsItsOwnDepth) {
  RankTrace t = SequenceRank();
  t.names[10] = "optimizer_step";
  const std::vector<KernelSequence> q = FrequentKernelSequences(t, "aten::linear", 3, 10);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].pattern.front(), "aten::linear_backward");
}

// HTA's own test (tests/test_trace_analysis.py, test_no_frequent_cuda_kernel_sequences_found):
// aten::clone on the df_index_resolver trace gives no pattern. The trace's five
// "Optimizer.step#SGD.step" ranges (one per ProfilerStep#2-6, counted in the file) launch the
// same sequence each time: one pattern of count 5.
TEST(KernelSequences, HtaFindsNoneForCloneOnDfIndexResolver) {
  PARATUNE_SHARED_OR_SKIP(path, "traces/hta/df_index_resolver/df_index_resolver.json.gz");
  const std::vector<RankTrace> ranks = ReadTraceSet({path});
  EXPECT_TRUE(FrequentKernelSequences(ranks.front(), "aten::clone", 3, 5).empty());
  const std::vector<KernelSequence> step = FrequentKernelSequences(ranks.front(), "Optimizer.step", 3, 5);
  ASSERT_EQ(step.size(), 1u);
  EXPECT_EQ(step[0].count, 5);
  EXPECT_EQ(step[0].pattern.front(), "Optimizer.step#SGD.step");
}

}  // namespace
}  // namespace paratune
