#include <gtest/gtest.h>

#include "diagnose/plan_test_util.h"
#include "diagnose/rules.h"
#include "diagnose/what_if.h"
#include "hardware/hardware_catalog.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// One rank's trace built event by event: ProfilerStep ranges on the CPU, each kernel launched
// by a 5 µs cudaLaunchKernel just before it, on stream 7.
class TraceBuilder {
 public:
  TraceBuilder() {
    t_.path = "rank0.json";
    t_.rank = 0;
  }
  void Step(int n, int64_t ts_ns, int64_t dur_ns) {
    Add(EventKind::kUserAnnotation, "ProfilerStep#" + std::to_string(n), ts_ns, dur_ns, -1, -1);
  }
  // Launches at ts - launch_gap - 5 µs; the kernel starts at ts.
  void Kernel(const std::string& name, int64_t ts_ns, int64_t dur_ns, int64_t launch_ns = 5000, int64_t gap_ns = 1000) {
    Add(EventKind::kRuntime, "cudaLaunchKernel", ts_ns - gap_ns - launch_ns, launch_ns, -1, corr_);
    Add(EventKind::kKernel, name, ts_ns, dur_ns, 7, corr_);
    ++corr_;
  }
  RankTrace Take() { return std::move(t_); }

 private:
  void Add(EventKind kind, const std::string& name, int64_t ts, int64_t dur, int64_t stream, int64_t corr) {
    uint32_t id = 0;
    while (id < t_.names.size() && t_.names[id] != name) ++id;
    if (id == t_.names.size()) t_.names.push_back(name);
    TraceEvent e;
    e.ts_ns = ts;
    e.dur_ns = dur;
    e.stream = stream;
    e.correlation = corr;
    e.name = id;
    e.kind = kind;
    t_.events.push_back(e);
  }
  RankTrace t_;
  int64_t corr_ = 1;
};

constexpr int64_t kMs = 1'000'000;

// Five steps of 20 ms (the last is dropped as HTA does): per step four 4 ms GEMMs and two 1 ms
// softmax (or attention) kernels, back to back with 10 µs gaps.
RankTrace Steps(const std::string& gemm, const std::string& attention) {
  TraceBuilder b;
  for (int s = 0; s < 5; ++s) {
    const int64_t t0 = 1'000 * kMs + s * 20 * kMs;
    b.Step(s + 1, t0, 20 * kMs);
    int64_t t = t0 + 100'000;
    for (int k = 0; k < 4; ++k, t += 4 * kMs + 10'000) b.Kernel(gemm, t, 4 * kMs);
    for (int k = 0; k < 2; ++k, t += kMs + 10'000) b.Kernel(attention, t, kMs);
  }
  return b.Take();
}

DiagnoseInputs InputsOf(RankTrace t) {
  DiagnoseInputs in;
  in.traces.push_back(std::move(t));
  in.analysis = AnalyzeTraces(in.traces);
  return in;
}

std::vector<Finding> DiagnoseSlowKernels(const DiagnoseInputs& in) {
  std::vector<Finding> out;
  MakeSlowKernelsRule()->Check(in, &out);
  return out;
}

TEST(SlowKernels, Fp32GemmsAndUnfusedAttention) {
  const DiagnoseInputs in = InputsOf(
      Steps("ampere_sgemm_128x64_nn", "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*)"));
  const std::vector<Finding> f = DiagnoseSlowKernels(in);
  ASSERT_EQ(f.size(), 2u);
  const double window = in.analysis->ranks[0].temporal.window_s;
  // Four steps kept: 16 GEMMs of 4 ms and 8 softmax kernels of 1 ms.
  const GpuSpec h100 = HardwareCatalog::BuiltIn().Find("H100");
  EXPECT_EQ(f[0].rule, "slow_kernels");
  EXPECT_CONTAINS(f[0].title, "FP32 GEMMs: 100% of the GEMM time");
  EXPECT_NEAR(f[0].evidence[0].value, 0.064, 1e-9);
  EXPECT_NEAR(f[0].loss_fraction, 0.064 / window * (1 - h100.fp32_flops / h100.bf16_flops), 1e-9);
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_EQ(f[0].where.gpus, (std::vector<int>{0}));
  EXPECT_CONTAINS(f[0].fix, "--bf16");
  EXPECT_CONTAINS(f[0].message, "On H100 (assumed: no --gpu");
  EXPECT_CONTAINS(f[1].title, "no FlashAttention-class kernel");
  EXPECT_NEAR(f[1].evidence[0].value, 0.008, 1e-9);
  EXPECT_NEAR(f[1].loss_fraction, 0.008 / window, 1e-9);
  EXPECT_CONTAINS(f[1].fix, "flash");
}

TEST(SlowKernels, ControlBf16GemmsAndFlashAttention) {
  const DiagnoseInputs in =
      InputsOf(Steps("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize1x1x1_execute_segment_k_"
                     "off_kernel__5x_cublas",
                     "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>(Flash_fwd_params)"));
  EXPECT_TRUE(DiagnoseSlowKernels(in).empty());
  EXPECT_TRUE(DiagnoseSlowKernels(DiagnoseInputs{}).empty());
}

TEST(SlowKernels, Fp32GemmsAreJudgedOnTheGpuTheRunUsed) {
  // The GPU from --gpu (no model): an A100's FP32 is 19.5 of its 312 TFLOP/s BF16.
  DiagnoseInputs in = InputsOf(Steps("ampere_sgemm_128x64_nn", "flash_fwd_kernel"));
  in.cluster = HardwareCatalog::BuiltIn().Cluster("A100-80GB", 8);
  const std::vector<Finding> f = DiagnoseSlowKernels(in);
  ASSERT_EQ(f.size(), 1u);
  const GpuSpec a100 = HardwareCatalog::BuiltIn().Find("A100-80GB");
  const double window = in.analysis->ranks[0].temporal.window_s;
  EXPECT_NEAR(f[0].loss_fraction, 0.064 / window * (1 - a100.fp32_flops / a100.bf16_flops), 1e-9);
  EXPECT_CONTAINS(f[0].message, "On A100-80GB FP32");
}

TEST(SlowKernels, LaunchBound) {
  // 300 kernels of 2 µs, each launched by a 10 µs call, 20 µs apart: the GPU idles 90%.
  TraceBuilder b;
  for (int s = 0; s < 4; ++s) b.Step(s + 1, s * 2 * kMs, 2 * kMs);
  for (int k = 0; k < 300; ++k)
    b.Kernel("void at::native::vectorized_elementwise_kernel<4>()", 100'000 + k * 20'000, 2'000, 10'000, 5'000);
  const DiagnoseInputs in = InputsOf(b.Take());
  const std::vector<Finding> f = DiagnoseSlowKernels(in);
  ASSERT_EQ(f.size(), 1u);
  const RankAnalysis& r = in.analysis->ranks[0];
  EXPECT_GE(r.launch.launches, 200);
  EXPECT_EQ(r.launch.short_kernels, r.launch.launches);
  EXPECT_CONTAINS(f[0].title, "launch-bound: 100% of");
  EXPECT_NEAR(f[0].loss_fraction, r.temporal.idle_s / r.temporal.window_s, 1e-12);
  EXPECT_GT(f[0].loss_fraction, 0.8);
  EXPECT_CONTAINS(f[0].fix, "CUDA graphs");
  // Each kernel starts 15 us after its launch call starts, 20 us after the previous kernel: the
  // queue holds one launch for 15 of every 20 us; over n kernels 15n / (20n - 5) = 0.75.
  EXPECT_CONTAINS(f[0].message, "On the busiest stream 0.75 launches wait on average");
}

TEST(SlowKernels, ShortKernelsThatQueueAreNotLaunchBound) {
  // The same 300 short kernels, but each starts 400 µs after its launch (HTA's launch-delay
  // cutoff is 100 µs): the CPU runs ahead of a busy queue, so the GPU's idle time has another
  // cause and the trace is not launch-bound.
  TraceBuilder b;
  for (int s = 0; s < 4; ++s) b.Step(s + 1, s * 2 * kMs, 2 * kMs);
  for (int k = 0; k < 300; ++k)
    b.Kernel("void at::native::vectorized_elementwise_kernel<4>()", 500'000 + k * 20'000, 2'000, 10'000, 400'000);
  const DiagnoseInputs in = InputsOf(b.Take());
  const RankAnalysis& r = in.analysis->ranks[0];
  EXPECT_EQ(r.launch.short_kernels, r.launch.launches);
  EXPECT_GT(r.launch.mean_launch_delay_s, 100e-6);
  EXPECT_TRUE(DiagnoseSlowKernels(in).empty());
}

TEST(SlowKernels, StepSlowerThanTheCostModelWithBusyGpus) {
  // Llama-3.1-8B, 8 H100, tp 2: the cost model predicts a step of about 32.6 s. A trace whose
  // steps take 45 s with one long BF16 GEMM each (the GPU busy all the time) is 1.38x slower.
  DiagnoseInputs in;
  TraceBuilder b;
  const int64_t step = 45'000 * kMs;
  for (int s = 0; s < 4; ++s) {
    b.Step(s + 1, s * step, step);
    b.Kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64", s * step + 10'000, step - 20'000);
  }
  in = InputsOf(b.Take());
  in.plan = testing_plan::Plan("llama-3.1-8b", "H100", 8, testing_plan::L(2, 1));
  const std::vector<Finding> f = DiagnoseSlowKernels(in);
  ASSERT_EQ(f.size(), 1u);  // micro-batch 2 needs 84 GB: no micro-batch finding
  EXPECT_CONTAINS(f[0].title, "the step takes");
  EXPECT_NEAR(f[0].evidence[0].value, 45.0, 1e-9);
  EXPECT_NEAR(f[0].loss_fraction, 1 - in.plan->estimate.step_time_s / 45.0, 1e-9);
  EXPECT_EQ(f[0].severity, Severity::kCritical);
}

TEST(SlowKernels, MicroBatchTooSmall) {
  // Llama-3.1-8B on 8 H100 with tp 8 and micro-batch 1 (25 GB): micro-batch 2 and 4 fit.
  DiagnoseInputs in = InputsOf(Steps("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "flash_fwd_kernel"));
  in.plan = testing_plan::Plan("llama-3.1-8b", "H100", 8, testing_plan::L(8, 1));
  const PlannedRun& p = *in.plan;
  double best = 0;
  for (int mbs : {2, 4}) {
    Layout l = testing_plan::L(8, 1);
    l.mbs = mbs;
    const Estimate e = EstimateStep(p.model, p.cluster, p.training, l);
    if (FitsWithHeadroom(e)) best = std::max(best, e.tokens_per_s);
  }
  ASSERT_GT(best, 0);
  const double gain = 1 - p.estimate.tokens_per_s / best;
  EXPECT_GT(gain, 0.03);               // 41.2 s -> 39.4 s with micro-batch 4 on this cost model
  EXPECT_LT(gain, kMinPredictedGain);  // within the model's error: info
  const std::vector<Finding> f = DiagnoseSlowKernels(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NEAR(f[0].loss_fraction, gain, 1e-12);
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  EXPECT_CONTAINS(f[0].fix, "--mbs 4 (Megatron-LM --micro-batch-size 4)");
}

}  // namespace
}  // namespace paratune
