#include "analysis/trace_diff.h"

#include <gtest/gtest.h>

#include <map>

#include "trace/trace_set.h"
#include "util/test_util.h"

namespace paratune {
namespace {

const std::string kCompare = std::string(PARATUNE_SOURCE_DIR) + "/testdata/traces/hta/trace_compare/";

std::map<std::string, std::pair<int64_t, double>> ControlSide(const TraceDiff& d) {
  std::map<std::string, std::pair<int64_t, double>> out;
  for (const OpDiffRow& r : d.rows)
    if (r.control_count > 0) out[r.name] = {r.control_count, r.control_total_s * 1e6};
  return out;
}

std::map<OpChange, std::vector<std::string>> ByChange(const TraceDiff& d) {
  std::map<OpChange, std::vector<std::string>> out;
  for (const OpDiffRow& r : d.rows) out[r.change].push_back(r.name);
  return out;
}

TraceDiffOptions Iteration1010(DiffDevice device, bool short_names) {
  TraceDiffOptions o;
  o.control = {{1}, {1010}};
  o.test = {{1}, {1010}};
  o.device = device;
  o.short_names = short_names;
  return o;
}

// HTA's own test of its TraceDiff (tests/test_trace_diff.py at f4d0062, TraceCompareTestCase) on
// its trace_compare base and test traces, figure for figure.
TEST(TraceDiff, ReproducesHtaTraceCompareTest) {
  const auto base = ReadTraceSet({kCompare + "base"});
  const auto test = ReadTraceSet({kCompare + "test"});
  ASSERT_EQ(base.size(), 1u);
  EXPECT_EQ(base[0].rank, 1);

  // test_extract_ops: 6 CPU events and 1 GPU event in iteration 1010 of rank 1.
  EXPECT_EQ(DiffTraces(base, base, Iteration1010(DiffDevice::kCpu, false)).control.events, 6);
  EXPECT_EQ(DiffTraces(base, base, Iteration1010(DiffDevice::kGpu, false)).control.events, 1);

  // test_get_ops_summary: counts and total durations (µs) of the CPU events.
  const TraceDiff cpu = DiffTraces(base, test, Iteration1010(DiffDevice::kCpu, false));
  const std::map<std::string, std::pair<int64_t, double>> want = {
      {"ProfilerStep#1010", {1, 122149}}, {"aten::as_strided", {1, 0}}, {"aten::empty", {1, 0}},
      {"cudaEventQuery", {1, 4}},         {"cudaLaunchKernel", {1, 4}}, {"nccl:all_reduce", {1, 67}}};
  const auto got = ControlSide(cpu);
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [name, v] : want) {
    ASSERT_TRUE(got.contains(name)) << name;
    EXPECT_EQ(got.at(name).first, v.first) << name;
    EXPECT_NEAR(got.at(name).second, v.second, 1e-6) << name;
  }
  EXPECT_NEAR(cpu.control.step_time_s, 122149e-6, 1e-12);

  // test_ops_diff (CPU, full names).
  auto changes = ByChange(cpu);
  EXPECT_EQ(changes[OpChange::kAdded],
            (std::vector<std::string>{"AddmmBackward0", "All2All_Pooled_Req", "CatBackward0"}));
  EXPECT_EQ(changes[OpChange::kDeleted], (std::vector<std::string>{"nccl:all_reduce"}));
  EXPECT_TRUE(changes[OpChange::kIncreased].empty());
  EXPECT_TRUE(changes[OpChange::kDecreased].empty());
  EXPECT_EQ(changes[OpChange::kUnchanged],
            (std::vector<std::string>{"ProfilerStep#1010", "aten::as_strided", "aten::empty", "cudaEventQuery",
                                      "cudaLaunchKernel"}));

  // test_compare_trace: counts_change_categories with short names, CPU {=: 5, +: 3, -: 1}, GPU {-: 1}.
  const TraceDiff cpu_short = DiffTraces(base, test, Iteration1010(DiffDevice::kCpu, true));
  EXPECT_EQ(cpu_short.CountOf(OpChange::kUnchanged), 5);
  EXPECT_EQ(cpu_short.CountOf(OpChange::kAdded) + cpu_short.CountOf(OpChange::kIncreased), 3);
  EXPECT_EQ(cpu_short.CountOf(OpChange::kDeleted) + cpu_short.CountOf(OpChange::kDecreased), 1);
  const TraceDiff gpu_short = DiffTraces(base, test, Iteration1010(DiffDevice::kGpu, true));
  ASSERT_EQ(gpu_short.rows.size(), 1u);
  EXPECT_EQ(gpu_short.rows[0].change, OpChange::kDeleted);
  EXPECT_EQ(gpu_short.rows[0].name, "at::native::vectorized_elementwise_kernel");
}

TEST(TraceDiff, DefaultsAreTheLowestRankAndStep) {
  const auto base = ReadTraceSet({kCompare + "base"});
  const TraceDiff d = DiffTraces(base, base, {});
  EXPECT_EQ(d.control.selected.ranks, std::vector<int>{1});
  EXPECT_EQ(d.control.selected.iterations, std::vector<int64_t>{1009});
  EXPECT_NEAR(d.control.step_time_s, 100298e-6, 1e-12);
  EXPECT_EQ(d.CountOf(OpChange::kUnchanged), static_cast<int64_t>(d.rows.size()));
}

TraceEvent At(uint32_t name, EventKind kind, int64_t ts_ns, int64_t dur_ns, int64_t stream, int64_t corr = -1) {
  TraceEvent e;
  e.name = name;
  e.kind = kind;
  e.ts_ns = ts_ns;
  e.dur_ns = dur_ns;
  e.stream = stream;
  e.correlation = corr;
  return e;
}

// By hand: two steps that overlap (the later in file order wins the overlap, as HTA's scan does),
// a kernel taking its launch's step, a cpu_op on stream 0 placed by time, and HTA's inward
// rounding of fractional timestamps (ts 10.5 µs, dur 2 µs -> [11, 12]: 1 µs).
TEST(TraceDiff, StepsByTimeKernelsByLaunchAndRounding) {
  RankTrace t;
  t.rank = 0;
  t.fractional_ts = true;
  t.names = {"ProfilerStep#1", "ProfilerStep#2", "aten::mm", "cudaLaunchKernel", "gemm_kernel", "triton_op"};
  t.events = {At(0, EventKind::kUserAnnotation, 0, 100'000, -1), At(1, EventKind::kUserAnnotation, 90'000, 100'000, -1),
              At(2, EventKind::kCpuOp, 10'500, 2'000, -1),       // step 1: 1 µs after rounding
              At(2, EventKind::kCpuOp, 95'000, 3'000, -1),       // overlap: step 2
              At(3, EventKind::kRuntime, 50'000, 1'000, -1, 7),  // step 1
              At(4, EventKind::kKernel, 150'000, 20'000, 7, 7),  // launched in step 1
              At(5, EventKind::kCpuOp, 120'000, 1'000, 0)};      // stream 0, by time: step 2
  TraceDiffOptions o;
  o.control.iterations = {1};
  o.test.iterations = {2};
  const TraceDiff d = DiffTraces({t}, {t}, o);
  std::map<std::string, OpDiffRow> rows;
  for (const OpDiffRow& r : d.rows) rows[r.name] = r;
  EXPECT_EQ(rows["aten::mm"].control_count, 1);
  EXPECT_NEAR(rows["aten::mm"].control_total_s, 1e-6, 1e-15);
  EXPECT_EQ(rows["aten::mm"].test_count, 1);
  EXPECT_NEAR(rows["aten::mm"].test_total_s, 3e-6, 1e-15);
  EXPECT_EQ(rows["aten::mm"].change, OpChange::kUnchanged);
  EXPECT_EQ(rows["gemm_kernel"].change, OpChange::kDeleted);
  EXPECT_NEAR(rows["gemm_kernel"].control_total_s, 20e-6, 1e-15);
  EXPECT_EQ(rows["cudaLaunchKernel"].change, OpChange::kDeleted);
  EXPECT_EQ(rows["triton_op"].change, OpChange::kAdded);
  EXPECT_EQ(rows["ProfilerStep#1"].change, OpChange::kDeleted);
  EXPECT_EQ(rows["ProfilerStep#2"].change, OpChange::kAdded);
  EXPECT_EQ(d.control.events, 4);  // step 1, mm, launch, kernel
  EXPECT_EQ(d.test.events, 3);     // step 2, mm, triton_op

  o.exact_ns = true;
  const TraceDiff exact = DiffTraces({t}, {t}, o);
  for (const OpDiffRow& r : exact.rows)
    if (r.name == "aten::mm") EXPECT_NEAR(r.control_total_s, 2e-6, 1e-15);
}

TEST(TraceDiff, BadSelectionsAreOneLine) {
  const auto base = ReadTraceSet({kCompare + "base"});
  TraceDiffOptions o;
  o.test.ranks = {3};
  EXPECT_CONTAINS(InputErrorOf([&] { DiffTraces(base, base, o); }), "rank 3 is not in the test traces");
  o = {};
  o.control.iterations = {7};
  EXPECT_CONTAINS(InputErrorOf([&] { DiffTraces(base, base, o); }),
                  "ProfilerStep#7 is not in the control traces (they hold 1009 to 1010)");
  RankTrace no_steps;
  no_steps.rank = 0;
  no_steps.names = {"aten::mm"};
  no_steps.events = {At(0, EventKind::kCpuOp, 0, 10, -1)};
  EXPECT_CONTAINS(InputErrorOf([&] { DiffTraces(base, {no_steps}, {}); }), "the test traces have no ProfilerStep#N");
}

// HTA's shorten_name, case by case (hta/utils/utils.py).
TEST(TraceDiff, ShortNamesFollowHta) {
  EXPECT_EQ(
      ShortOpName("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                  "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)"),
      "at::native::vectorized_elementwise_kernel");
  EXPECT_EQ(ShortOpName("Memcpy HtoD (Pinned -> Device)"), "Memcpy HtoD (Pinned -> Device)");
  EXPECT_EQ(ShortOpName("hipMemset (Device)"), "hipMemset (Device)");
  EXPECT_EQ(ShortOpName("aten::mm"), "aten::mm");
  EXPECT_EQ(ShortOpName("void (anonymous namespace)::softmax_warp_forward<float>(float*)"), "::softmax_warp_forward");
  EXPECT_EQ(ShortOpName("autograd::engine::evaluate_function: AddmmBackward0"),
            "autograd::engine::evaluate_function: AddmmBackward0");
  EXPECT_EQ(ShortOpName("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            "ncclDevKernel_AllReduce_Sum_bf16_RING_LL");
}

}  // namespace
}  // namespace paratune

namespace paratune {
namespace {

TEST(TraceDiff, SelectionSpecs) {
  using Pair = std::pair<std::vector<int64_t>, std::vector<int64_t>>;
  EXPECT_EQ(ParseDiffPair("1009:1010", "--diff-steps"), (Pair{{1009}, {1010}}));
  EXPECT_EQ(ParseDiffPair("3-5:8,9", "--diff-steps"), (Pair{{3, 4, 5}, {8, 9}}));
  EXPECT_EQ(ParseDiffPair(":2", "--diff-ranks"), (Pair{{}, {2}}));
  EXPECT_EQ(ParseDiffPair("7", "--diff-ranks"), (Pair{{7}, {7}}));
  EXPECT_CONTAINS(InputErrorOf([] { ParseDiffPair("1:2:3", "--diff-steps"); }), "more than one ':'");
  EXPECT_CONTAINS(InputErrorOf([] { ParseDiffPair("a:2", "--diff-steps"); }),
                  "--diff-steps: 'a' is not a number from 0");
  EXPECT_CONTAINS(InputErrorOf([] { ParseDiffPair("-1", "--diff-ranks"); }), "is not a number from 0");
  EXPECT_CONTAINS(InputErrorOf([] { ParseDiffPair("5-3", "--diff-steps"); }), "range '5-3' must rise");
  EXPECT_CONTAINS(InputErrorOf([] { ParseDiffPair("0-9999999999", "--diff-steps"); }), "at most 100000 numbers");
  EXPECT_CONTAINS(InputErrorOf([] { ParseDiffPair("1,,2", "--diff-steps"); }), "'' is not a number");
}

}  // namespace
}  // namespace paratune
