// slow_kernels (issue 11 rule 2): the GPUs are busy but the kernels are slow or the wrong ones.
// From the trace analysis (analysis/trace_analysis.h) and, where given, the plan; each check is
// its own finding:
//  1. FP32 GEMMs: GEMM kernels whose names say FP32 on CUDA cores (cuBLAS/CUTLASS "sgemm",
//     "..._f32f32_f32f32_..."), more than 10% of the GEMM time, where the plan (or, without one,
//     mixed-precision LLM training) runs 16-bit or lower GEMMs on tensor cores. Loss: their share
//     of the GPU time x (1 - FP32 peak / tensor-core peak of the planned precision) (datasheet
//     peaks, data/gpus.toml).
//  2. Unfused attention: softmax kernels and no FlashAttention-class kernel (names with "flash",
//     "fmha", "sdpa", "cudnn_sdp", "efficient_attention", "fused_attn": FlashAttention 2/3,
//     PyTorch SDPA, cuDNN, xFormers, Transformer Engine). Loss: the softmax kernels' share of the
//     GPU time, which the fused kernel removes (Dao et al. 2022, arXiv 2205.14135 Sec. 3.1: the
//     fused kernel never writes the score matrix), a lower bound.
//  3. Launch-bound: most launches are HTA's "short kernels" (GPU time below the launch call's CPU
//     time, hta/analyzers/cuda_kernel_analysis.py) while the mean launch delay stays under HTA's
//     launch-delay cutoff (kernels start as soon as they are launched: the GPU waits on the CPU)
//     and fewer than two launches wait on the busiest stream on average (HTA's launch queue)
//     and the GPU idles 10% or more. Loss: the idle share.
//  4. Slower than the cost model: with a plan, a measured step 1.2x the predicted one or more
//     (beyond the model's 16.8% p90 throughput error, docs/validation.md) while the GPU idles
//     under 10%: the kernels themselves run slowly. Loss: 1 - predicted/measured.
//  5. Micro-batch too small: with a plan and a measured run, a larger micro-batch (2x, 4x) that
//     fits (planner headroom) and that the cost model predicts faster (GEMMs of a tiny
//     micro-batch run below the tensor cores' rate, docs/cost-model.md); a warning from a 5%
//     predicted gain (kMinPredictedGain), info below.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <string_view>

#include "diagnose/link_ceiling.h"
#include "diagnose/rules.h"
#include "diagnose/what_if.h"
#include "hardware/hardware_catalog.h"
#include "util/text.h"

namespace paratune {
namespace {

// FP32 GEMM kernel names (cuBLAS "ampere_sgemm_128x64_nn", "volta_sgemm_...", CUTLASS
// "cutlass_80_simt_sgemm_...", cuBLASLt "sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_..."); TF32 and
// 16-bit kernels name their input type ("tf32", "bf16", "s1688gemm" = TF32 tensor op, "h16816").
constexpr std::array<std::string_view, 2> kFp32GemmPatterns{"sgemm", "_f32f32_f32f32"};
// FlashAttention-class (fused attention) kernel names.
constexpr std::array<std::string_view, 6> kFusedAttentionPatterns{
    "flash", "fmha", "sdpa", "cudnn_sdp", "efficient_attention", "fused_attn"};
constexpr std::string_view kSoftmaxPattern = "softmax";
// FP32 GEMM time above this share of all GEMM time is a finding: what legitimately stays FP32 in
// mixed-precision training (the MoE router, small loss-side products) is a few percent at most.
constexpr double kFp32GemmShare = 0.10;
// Launch-bound: the majority of launches are short kernels, and the GPU idles at least this share.
constexpr double kShortKernelMajority = 0.5;
constexpr double kLaunchBoundIdleShare = 0.10;
constexpr int64_t kMinLaunches = 100;  // fewer: too small a sample
// ... and the GPU has little queued: on its busiest stream fewer than this many launches wait on
// average over time (HTA's queue length, analysis/queue_length.h). Two or more waiting mean the
// CPU runs ahead of the GPU, whatever the kernels' lengths.
constexpr double kQueuedLaunches = 2.0;
// Slower than predicted: measured / predicted step at or above 1 + this, with the GPU busy.
// docs/validation.md: the throughput error's p90 is 16.8% on published runs, so 20% is beyond it.
constexpr double kSlowStepExcess = 0.20;
constexpr double kBusyIdleShare = 0.10;
// Larger micro-batches tried: 2x and 4x.
constexpr int kMaxMbsFactor = 4;

template <size_t N>
bool HasAny(const std::string& lower, const std::array<std::string_view, N>& patterns) {
  for (std::string_view p : patterns)
    if (lower.find(p) != std::string::npos) return true;
  return false;
}

struct KernelSum {
  double sum_s = 0;
  int64_t count = 0;
  KernelCategory category = KernelCategory::kOther;
};

// Per-name GPU time summed over ranks: every kernel of the traces when they are loaded, else
// the analysis' top kernels (an analysis JSON read back).
std::map<std::string, KernelSum> KernelTimes(const DiagnoseInputs& in) {
  std::map<std::string, KernelSum> out;
  if (!in.traces.empty()) {
    // The analysed GPU events of each rank (HTA's last-step filter applied), so that the times
    // compare with the analysis' window.
    for (const RankAnalysis& r : in.analysis->ranks) {
      const RankTrace* t = nullptr;
      for (const RankTrace& c : in.traces)
        if (c.rank == r.rank && c.path == r.path) t = &c;
      if (!t) continue;
      std::vector<KernelSum> by_name(t->names.size());
      for (uint32_t i : r.analysed_events) {
        if (i >= t->events.size()) continue;
        const TraceEvent& e = t->events[i];
        if (e.kind == EventKind::kKernel && e.dur_ns > 0) {
          by_name[e.name].sum_s += double(e.dur_ns) * 1e-9;
          ++by_name[e.name].count;
        }
      }
      for (size_t i = 0; i < by_name.size(); ++i)
        if (by_name[i].count) {
          KernelSum& k = out[t->names[i]];
          k.sum_s += by_name[i].sum_s;
          k.count += by_name[i].count;
          k.category = KernelCategoryOf(t->names[i], EventKind::kKernel);
        }
    }
    return out;
  }
  for (const RankAnalysis& r : in.analysis->ranks)
    for (const KernelStat& k : r.top_kernels) {
      KernelSum& s = out[k.name];
      s.sum_s += k.sum_s;
      s.count += k.count;
      s.category = k.category;
    }
  return out;
}

Finding Make(const char* rule, double loss, Severity floor) {
  Finding f;
  f.rule = rule;
  f.loss_fraction = loss;
  f.severity = AtLeast(SeverityForLoss(loss), floor);
  return f;
}

// The kernel-name tallies: GEMM, FP32 GEMM, softmax and fused attention time, and the largest
// FP32 GEMM and softmax kernels.
struct KernelNameTimes {
  double gemm_s = 0, fp32_s = 0, softmax_s = 0, fused_s = 0;
  std::string fp32_top, softmax_top;
  double fp32_top_s = 0, softmax_top_s = 0;
};

// Sums the kernels' time by what their names say (FP32 GEMM, softmax, fused attention).
KernelNameTimes SumKernelNames(const std::map<std::string, KernelSum>& kernels) {
  KernelNameTimes t;
  for (const auto& [name, k] : kernels) {
    const std::string lower = AsciiLower(name);
    if (HasAny(lower, kFusedAttentionPatterns)) t.fused_s += k.sum_s;
    if (k.category == KernelCategory::kGemm) {
      t.gemm_s += k.sum_s;
      if (HasAny(lower, kFp32GemmPatterns)) {
        t.fp32_s += k.sum_s;
        if (k.sum_s > t.fp32_top_s) t.fp32_top_s = k.sum_s, t.fp32_top = name;
      }
    }
    if (lower.find(kSoftmaxPattern) != std::string::npos && !HasAny(lower, kFusedAttentionPatterns)) {
      t.softmax_s += k.sum_s;
      if (k.sum_s > t.softmax_top_s) t.softmax_top_s = k.sum_s, t.softmax_top = name;
    }
  }
  return t;
}

class SlowKernels : public Rule {
 public:
  const char* Name() const override { return "slow_kernels"; }
  const char* Summary() const override {
    return "slow or fallback kernels: FP32 GEMMs, no fused attention, launch-bound, slower than the cost model, tiny "
           "micro-batch";
  }
  void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const override {
    if (!in.analysis || in.analysis->ranks.empty()) return;
    const TraceAnalysis& a = *in.analysis;
    double window_s = 0, idle_s = 0;
    std::vector<int> ranks;
    for (const RankAnalysis& r : a.ranks) {
      window_s += r.temporal.window_s;
      idle_s += r.temporal.idle_s;
      ranks.push_back(r.rank);
    }
    if (!(window_s > 0)) return;
    const double idle_share = idle_s / window_s;
    const std::map<std::string, KernelSum> kernels = KernelTimes(in);
    CheckKernelNames(in, kernels, window_s, ranks, out);
    CheckLaunches(a, idle_share, out);
    if (in.plan) CheckAgainstPlan(in, idle_share, ranks, out);
  }

 private:
  void CheckKernelNames(const DiagnoseInputs& in, const std::map<std::string, KernelSum>& kernels, double window_s,
                        const std::vector<int>& ranks, std::vector<Finding>* out) const {
    const KernelNameTimes t = SumKernelNames(kernels);
    const std::string source = in.traces.empty() ? "analysis top kernels" : "trace kernels";
    if (t.gemm_s > 0 && t.fp32_s / t.gemm_s > kFp32GemmShare) CheckFp32Gemms(in, t, window_s, ranks, source, out);
    CheckUnfusedAttention(t, window_s, ranks, source, out);
  }

  // Check 1: FP32 GEMMs, more than kFp32GemmShare of the GEMM time.
  void CheckFp32Gemms(const DiagnoseInputs& in, const KernelNameTimes& t, double window_s,
                      const std::vector<int>& ranks, const std::string& source, std::vector<Finding>* out) const {
    const double gemm_s = t.gemm_s, fp32_s = t.fp32_s;
    const Precision p = in.plan ? in.plan->training.precision : Precision::kBf16;
    // The GPU the GEMMs ran on: the plan's, the one given with --gpu, the trace's device when
    // the catalog knows it, else an H100, said so in the message.
    std::string device;
    for (const RankAnalysis& r : in.analysis->ranks)
      if (device.empty()) device = r.device_name;
    const std::string traced = device.empty() ? "" : CatalogGpuForDevice(device);
    const GpuSpec gpu = in.plan      ? in.plan->cluster.gpu
                        : in.cluster ? in.cluster->gpu
                                     : HardwareCatalog::BuiltIn().Find(traced.empty() ? "H100" : traced);
    const std::string assumed =
        in.plan || in.cluster || !traced.empty()
            ? ""
            : fmt::format(" (assumed: no --gpu, and the trace's device{} is not in the catalog)",
                          device.empty() ? "" : " '" + device + "'");
    const double speed = gpu.peak_flops(p) > 0 && gpu.fp32_flops > 0 ? gpu.fp32_flops / gpu.peak_flops(p) : 0;
    const double share = fp32_s / window_s;
    Finding f = Make(Name(), share * (1 - speed), Severity::kWarning);
    f.title = fmt::format("FP32 GEMMs: {:.0f}% of the GEMM time runs on CUDA cores, not {} tensor cores",
                          100 * fp32_s / gemm_s, PrecisionName(p));
    f.message = fmt::format(
        "{:.3f} s of {:.3f} s GEMM time ({:.1f}% of the GPU time) is in FP32 GEMM kernels, the largest {} ({:.3f} "
        "s). "
        "On {}{} FP32 runs at {:.0f} TFLOP/s against {:.0f} TFLOP/s dense {}, so these GEMMs would take {:.0f}x "
        "less.",
        fp32_s, gemm_s, 100 * share, t.fp32_top, t.fp32_top_s, gpu.name, assumed, gpu.fp32_flops / 1e12,
        gpu.peak_flops(p) / 1e12, PrecisionName(p), speed > 0 ? 1 / speed : 0.0);
    f.fix =
        "run the model in mixed precision: Megatron-LM --bf16 (or --fp8-format hybrid with Transformer Engine), "
        "PyTorch torch.autocast(\"cuda\", dtype=torch.bfloat16) or FSDP MixedPrecision(param_dtype=torch.bfloat16); "
        "where FP32 is wanted, allow TF32 (torch.backends.cuda.matmul.allow_tf32 = True)";
    f.where.gpus = ranks;
    f.evidence = {{"FP32 GEMM time", fp32_s, "s", source},
                  {"GEMM time", gemm_s, "s", source},
                  {"FP32 GEMM share of GPU time", share, "fraction", source},
                  {"FP32 / tensor-core peak", speed, "fraction", "data/gpus.toml " + gpu.name}};
    out->push_back(std::move(f));
  }

  // Check 2: unfused attention, softmax kernels and no FlashAttention-class kernel.
  void CheckUnfusedAttention(const KernelNameTimes& t, double window_s, const std::vector<int>& ranks,
                             const std::string& source, std::vector<Finding>* out) const {
    const double softmax_s = t.softmax_s, fused_s = t.fused_s;
    const double softmax_share = softmax_s / window_s;
    if (fused_s == 0 && softmax_share >= kWarningLoss) {
      Finding f = Make(Name(), softmax_share, Severity::kWarning);
      f.title = "no FlashAttention-class kernel: attention runs unfused (softmax kernels, score matrix in HBM)";
      f.message = fmt::format(
          "No fused attention kernel (flash, fmha, sdpa, cudnn_sdp, efficient_attention, fused_attn) among the "
          "kernels; "
          "softmax kernels take {:.3f} s ({:.1f}% of the GPU time), the largest {} ({:.3f} s).",
          softmax_s, 100 * softmax_share, t.softmax_top, t.softmax_top_s);
      f.fix =
          "use fused attention: Megatron-LM --attention-backend flash (or --use-flash-attn), Transformer Engine "
          "NVTE_FLASH_ATTN=1 / NVTE_FUSED_ATTN=1, PyTorch torch.nn.functional.scaled_dot_product_attention, "
          "Hugging Face attn_implementation=\"flash_attention_2\" or \"sdpa\"";
      f.where.gpus = ranks;
      f.evidence = {{"softmax kernel time", softmax_s, "s", source},
                    {"softmax share of GPU time", softmax_share, "fraction", source},
                    {"fused attention kernel time", fused_s, "s", source}};
      out->push_back(std::move(f));
    }
  }

  void CheckLaunches(const TraceAnalysis& a, double idle_share, std::vector<Finding>* out) const {
    int64_t launches = 0, short_kernels = 0;
    double delay_s = 0, max_delay_s = 0;
    std::vector<int> ranks;
    for (const RankAnalysis& r : a.ranks) {
      launches += r.launch.launches;
      short_kernels += r.launch.short_kernels;
      delay_s += r.launch.launch_delay_s;
      max_delay_s = std::max(max_delay_s, r.launch.max_launch_delay_s);
      if (r.launch.launches > 0) ranks.push_back(r.rank);
    }
    if (launches < kMinLaunches || idle_share < kLaunchBoundIdleShare) return;
    const double short_share = double(short_kernels) / double(launches);
    const double mean_delay_s = delay_s / double(launches);
    const bool many_short = short_share >= kShortKernelMajority;
    // A launch-bound GPU runs each kernel as soon as the CPU launches it: the launch delay stays
    // short. A mean delay beyond HTA's launch-delay cutoff means kernels wait in a queue behind
    // others, the CPU runs ahead, and the idle time has another cause (host syncs, the data
    // loader), so it is not launch-bound however short the kernels are.
    // HTA's launch queue of each rank's busiest stream (most points), the longest of them.
    double queue = 0;
    double graph_s = 0, gpu_s = 0;
    for (const RankAnalysis& r : a.ranks) {
      const auto busiest =
          std::max_element(r.queue_length.begin(), r.queue_length.end(),
                           [](const QueueLengthRow& x, const QueueLengthRow& y) { return x.count < y.count; });
      if (busiest != r.queue_length.end()) queue = std::max(queue, busiest->time_weighted_mean);
      graph_s += r.graphs.gpu_time_s;
      if (r.graphs.gpu_time_share > 0) gpu_s += r.graphs.gpu_time_s / r.graphs.gpu_time_share;
    }
    const bool queued = mean_delay_s >= a.options.launch_delay_cutoff_s || queue >= kQueuedLaunches;
    if (!many_short || queued) return;
    Finding f = Make(Name(), idle_share, Severity::kInfo);
    f.title = fmt::format("launch-bound: {:.0f}% of {} kernels are shorter than their launch, GPU idle {:.0f}%",
                          100 * short_share, launches, 100 * idle_share);
    f.message = fmt::format(
        "{} of {} launches are short kernels (GPU time under the launch call's CPU time, HTA's definition); mean "
        "launch "
        "delay {:.1f} us (max {:.1f} us; HTA's outlier cutoff {:.0f} us); the GPUs idle {:.1f}% of the time.",
        short_kernels, launches, mean_delay_s * 1e6, max_delay_s * 1e6, a.options.launch_delay_cutoff_s * 1e6,
        100 * idle_share);
    f.message += fmt::format(" On the busiest stream {:.2f} launches wait on average (HTA's launch queue).", queue);
    const double graph_share = gpu_s > 0 ? graph_s / gpu_s : 0;
    if (graph_share > 0)
      f.message +=
          fmt::format(" {:.0f}% of the GPU event time already runs from CUDA graph replays.", 100 * graph_share);
    f.fix = std::string(graph_share > 0 ? "capture the rest of the step in CUDA graphs" : "cut launches: CUDA graphs") +
            " (torch.compile(mode=\"reduce-overhead\"), Megatron-LM --enable-cuda-graph), kernel fusion "
            "(torch.compile, Transformer Engine, Apex fused optimizers), a larger micro-batch";
    f.where.gpus = ranks;
    f.evidence = {{"launches", double(launches), "", "trace launch statistics"},
                  {"short kernels", double(short_kernels), "", "trace launch statistics"},
                  {"mean launch delay", mean_delay_s, "s", "trace launch statistics"},
                  {"GPU idle share", idle_share, "fraction", "trace temporal breakdown"},
                  {"launch queue on the busiest stream (time-weighted mean)", queue, "", "trace launch queue"},
                  {"GPU event time from CUDA graphs", graph_share, "fraction", "trace CUDA graph launches"}};
    out->push_back(std::move(f));
  }

  void CheckAgainstPlan(const DiagnoseInputs& in, double idle_share, const std::vector<int>& ranks,
                        std::vector<Finding>* out) const {
    const PlannedRun& p = *in.plan;
    const Estimate& now = p.estimate;
    double step_sum = 0;
    int64_t steps = 0;
    for (const RankAnalysis& r : in.analysis->ranks)
      if (r.step_time.count > 0) {
        step_sum += r.step_time.mean * double(r.step_time.count);
        steps += r.step_time.count;
      }
    if (steps > 0 && now.step_time_s > 0 && idle_share < kBusyIdleShare) {
      const double measured = step_sum / double(steps);
      if (measured >= (1 + kSlowStepExcess) * now.step_time_s) {
        const double loss = 1 - now.step_time_s / measured;
        Finding f = Make(Name(), loss, Severity::kWarning);
        f.title =
            fmt::format("GPUs busy but the step takes {:.2f}x the cost model's prediction", measured / now.step_time_s);
        f.message = fmt::format(
            "Measured step {:.3f} s (mean of {} profiled steps) against {:.3f} s predicted for the plan (MFU {:.1f}% "
            "predicted, about {:.1f}% measured), with the GPUs idle only {:.1f}% of the time: the kernels themselves "
            "are slow (check the top kernels, their precision and fusion, and the clocks).",
            measured, steps, now.step_time_s, 100 * now.mfu, 100 * now.mfu * now.step_time_s / measured,
            100 * idle_share);
        f.fix =
            "compare the top kernels with the expected ones (paratune analyze): fused attention, 16-bit or FP8 "
            "GEMMs on tensor cores, fused norms and optimizers; check GPU clocks and throttling";
        f.where.gpus = ranks;
        f.evidence = {{"measured step time", measured, "s", "trace iterations"},
                      {"predicted step time", now.step_time_s, "s", "cost model"},
                      {"GPU idle share", idle_share, "fraction", "trace temporal breakdown"}};
        out->push_back(std::move(f));
      }
    }
    CheckMicroBatch(p, ranks, out);
  }

  // Check 5: a larger micro-batch (2x, 4x) that fits and that the cost model predicts faster.
  void CheckMicroBatch(const PlannedRun& p, const std::vector<int>& ranks, std::vector<Finding>* out) const {
    const Estimate& now = p.estimate;
    std::optional<Estimate> best;
    for (int k = 2; k <= kMaxMbsFactor; k *= 2) {
      Layout l = now.layout;
      l.mbs = now.layout.mbs * k;
      l.dp = 0;
      std::optional<Estimate> e = EstimateVariant(p, l, p.training);
      if (e && FitsWithHeadroom(*e) && (!best || e->tokens_per_s > best->tokens_per_s)) best = std::move(e);
    }
    if (!best) return;
    const double gain = LossAgainst(now, *best);
    if (gain <= 0) return;
    Finding f = Make(Name(), gain, Severity::kInfo);
    f.severity = SeverityOfPredictedGain(gain);
    f.title = fmt::format("micro-batch {} is small for GEMM efficiency: micro-batch {} is {:.1f}% faster",
                          now.layout.mbs, best->layout.mbs, 100 * gain);
    f.message = fmt::format(
        "The cost model predicts a {:.3f} s step with micro-batch {} ({} micro-batches) against "
        "{:.3f} s with {} ({} micro-batches); it fits in {:.1f} GB of {:.1f} GB.",
        best->step_time_s, best->layout.mbs, best->micro_batches, now.step_time_s, now.layout.mbs, now.micro_batches,
        best->peak_memory_bytes / 1e9, best->capacity_bytes / 1e9);
    f.fix = fmt::format("--mbs {} (Megatron-LM --micro-batch-size {})", best->layout.mbs, best->layout.mbs);
    f.where.gpus = ranks;
    f.evidence = {{"planned micro-batch", double(now.layout.mbs), "", "plan"},
                  {"proposed step time", best->step_time_s, "s", "cost model"},
                  {"predicted gain", gain, "fraction", "cost model"}};
    out->push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeSlowKernelsRule() { return std::make_unique<SlowKernels>(); }

}  // namespace paratune
