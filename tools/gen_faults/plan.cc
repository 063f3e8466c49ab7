// Fault cases of the plan rules (tools/gen_faults/cases.h): tp_too_large, pipeline_bubble,
// recompute_unneeded (a plan given as `paratune estimate` flags, no file), expert_imbalance (a
// per-expert token count CSV with the plan of the MoE model), slow_kernels, memory_fragmentation
// and critical_path (a PyTorch profiler trace in Kineto's JSON layout). Each with a clean control. The figures in the
// comments are the cost model's (src/diagnose/*_test.cc asserts them against EstimateStep).
#include <cstdio>
#include <string>
#include <tuple>

#include "cases.h"

namespace paratune::faults {
namespace {

// Llama-3.1-8B on one node of 8 H100 (global batch 256 x 8192 tokens).
const std::vector<std::string> kLlama8b = {"--model", "llama-3.1-8b", "--gpu", "H100", "--gpus", "8"};

std::vector<std::string> With(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

// Per-expert token counts of Mixtral 8x7B (32 layers, 8 experts, top-2) at global batch 64 x
// 4096: 524,288 routed tokens per layer and iteration, 65,536 per expert on average, counted
// every 10 iterations from 1000 to 1190, with 2% noise. With `hot`, from iteration 1100 on,
// expert 3 of layers 16-23 receives 3.5x the mean (taken evenly from the other seven).
std::string ExpertTokensCsv(bool hot, uint64_t seed) {
  Rng rng(seed);
  constexpr int kLayers = 32, kExperts = 8;
  constexpr double kMean = 64.0 * 4096 * 2 / kExperts;
  std::string s = "iteration,layer,expert,tokens\n";
  for (int i = 0; i < 20; ++i) {
    const int it = 1000 + 10 * i;
    for (int layer = 0; layer < kLayers; ++layer) {
      const bool skew = hot && it >= 1100 && layer >= 16 && layer < 24;
      for (int e = 0; e < kExperts; ++e) {
        double share = 1.0;
        if (skew) share = e == 3 ? 3.5 : (kExperts - 3.5) / (kExperts - 1);
        const double tokens = kMean * share * (1 + 0.02 * rng.Normal());
        s += std::to_string(it) + "," + std::to_string(layer) + "," + std::to_string(e) + "," +
             std::to_string(static_cast<long long>(tokens)) + "\n";
      }
    }
  }
  return s;
}

// The caching allocator's totals a trace's memory events report (profile_memory=True): in each
// step one allocation takes the allocated total from base to peak and a free takes it back.
struct AllocatorTotals {
  double base_bytes = 0, peak_bytes = 0, reserved_bytes = 0;  // 0: no memory events
};

// One rank of a profiled run in Kineto's layout (libkineto/src/output_json.cpp): five
// ProfilerStep#N ranges of 20 ms, in each four GEMMs of 4 ms and two attention-side kernels of
// 1 ms, every kernel launched by a cudaLaunchKernel on the main thread (with its ac2g flow),
// times in µs relative to baseTimeNanoseconds; with `memory`, each step's "[memory]" events
// (Kineto's cpu_instant_event with the allocator's totals, torch/csrc/profiler/collection.cpp).
// With `host_op_us`, each step starts with a CPU operator ("aten::nonzero", which syncs with the
// GPU for its output size) of that length before the launches, and every kernel takes
// `kernel_us` instead.
struct HostWork {
  double host_op_us = 0;
  double kernel_us = 0;  // 0: GEMMs of 4 ms, attention-side kernels of 1 ms
};
std::string KinetoTrace(const std::string& gemm, const std::string& attention, const AllocatorTotals& memory = {},
                        const HostWork& host = {}) {
  std::string ev;
  auto add = [&](const std::string& e) {
    if (!ev.empty()) ev += ",\n";
    ev += "  " + e;
  };
  char buf[1024];
  long corr = 100;
  const double t_base = 1000000.0;  // µs
  for (int s = 0; s < 5; ++s) {
    const double t0 = t_base + s * 20000.0;
    std::snprintf(
        buf, sizeof buf,
        R"J({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 4242, "tid": 4242, "ts": %.3f, "dur": 20000.000, "args": {"External id": %d}})J",
        s + 1, t0, s + 1);
    add(buf);
    if (memory.reserved_bytes > 0) {
      const double grow = memory.peak_bytes - memory.base_bytes;
      for (const auto& [at, bytes, total] :
           {std::tuple{t0 + 50.0, grow, memory.peak_bytes}, std::tuple{t0 + 15000.0, -grow, memory.base_bytes}}) {
        std::snprintf(
            buf, sizeof buf,
            R"J({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 4242, "tid": 4242, "ts": %.3f, "args": {"Device Type": 1, "Device Id": 0, "Addr": 139926520725504, "Bytes": %.0f, "Total Allocated": %.0f, "Total Reserved": %.0f}})J",
            at, bytes, total, memory.reserved_bytes);
        add(buf);
      }
    }
    double t = t0 + 100.0;
    if (host.host_op_us > 0) {
      std::snprintf(
          buf, sizeof buf,
          R"J({"ph": "X", "cat": "cpu_op", "name": "aten::nonzero", "pid": 4242, "tid": 4242, "ts": %.3f, "dur": %.3f, "args": {"External id": %d, "Record function id": 0}})J",
          t, host.host_op_us, 1000 + s);
      add(buf);
      t += host.host_op_us + 20.0;
    }
    auto kernel = [&](const std::string& name, double dur) {
      std::snprintf(
          buf, sizeof buf,
          R"J({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242, "ts": %.3f, "dur": 5.125, "args": {"cbid": 211, "correlation": %ld}})J",
          t - 6.5, corr);
      add(buf);
      std::snprintf(buf, sizeof buf,
                    R"J({"ph": "s", "id": %ld, "pid": 4242, "tid": 4242, "ts": %.3f, "cat": "ac2g", "name": "ac2g"})J",
                    corr, t - 6.5);
      add(buf);
      add(R"J({"ph": "X", "cat": "kernel", "name": ")J" + name + R"J(", "pid": 0, "tid": 7, "ts": )J" +
          std::to_string(t) + R"J(, "dur": )J" + std::to_string(dur) +
          R"J(, "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": )J" +
          std::to_string(corr) +
          R"J(, "registers per thread": 168, "shared memory": 98304, "blocks per SM": 1.0, "warps per SM": 8.0, "grid": [132, 1, 1], "block": [384, 1, 1], "est. achieved occupancy %": 12}})J");
      std::snprintf(
          buf, sizeof buf,
          R"J({"ph": "f", "id": %ld, "pid": 0, "tid": 7, "ts": %.3f, "cat": "ac2g", "name": "ac2g", "bp": "e"})J", corr,
          t);
      add(buf);
      ++corr;
      t += dur + 10.0;
    };
    for (int k = 0; k < 4; ++k) kernel(gemm, host.kernel_us > 0 ? host.kernel_us : 4000.0);
    for (int k = 0; k < 2; ++k) kernel(attention, host.kernel_us > 0 ? host.kernel_us : 1000.0);
  }
  add(R"J({"name": "process_name", "ph": "M", "ts": 1000000.000, "pid": 0, "tid": 0, "args": {"name": "python3"}})J");
  add(R"J({"ph": "X", "cat": "Trace", "ts": 999990.000, "dur": 100100.000, "pid": "Spans", "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)", "args": {"Op count": 0}})J");
  return std::string(R"J({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045231616, "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024, "numSms": 132}],
  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
  "traceEvents": [
)J") + ev +
         R"J(
  ],
  "traceName": "rank0.pt.trace.json",
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1735689600000000000
})J" + "\n";
}

}  // namespace

void AddPlanCases(CaseWriter& w) {
  // tp_too_large: tp 8 on one node for an 8B model; tp 2 x dp 4 fits (62 GB) and is ~21% faster.
  {
    FaultCase& c = w.Add("tp_too_large_tp8_llama8b", "tp_too_large", true);
    c.flags = With(kLlama8b, {"--tp", "8"});
    c.expect.min_loss_fraction = 0.15;
  }
  {
    FaultCase& c = w.Add("tp_too_large_clean", "tp_too_large", false);
    c.flags = With(kLlama8b, {"--tp", "2"});
  }
  // pipeline_bubble: pp 4 with 8 micro-batches (global batch 16): bubble ~23%; vp 8 cuts it to ~4%.
  {
    FaultCase& c = w.Add("pipeline_bubble_8_microbatches", "pipeline_bubble", true);
    c.flags = With(kLlama8b, {"--tp", "1", "--pp", "4", "--global-batch", "16"});
    c.expect.min_loss_fraction = 0.10;
  }
  {
    FaultCase& c = w.Add("pipeline_bubble_clean", "pipeline_bubble", false);
    c.flags = With(kLlama8b, {"--tp", "1", "--pp", "4", "--global-batch", "256"});  // 128 micro-batches: ~2%
  }
  // recompute_unneeded: full recomputation at tp 2 (43 GB) where none fits (62 GB): ~24% faster.
  {
    FaultCase& c = w.Add("recompute_unneeded_full_tp2", "recompute_unneeded", true);
    c.flags = With(kLlama8b, {"--tp", "2", "--recompute", "full"});
    c.expect.min_loss_fraction = 0.15;
  }
  {
    FaultCase& c = w.Add("recompute_unneeded_clean", "recompute_unneeded", false);
    c.flags = With(kLlama8b, {"--tp", "1", "--recompute", "full"});  // none needs 109 GB of 80
  }
  // expert_imbalance: Mixtral 8x7B on 16 H100 (tp 2, ep 8), expert 3 of layers 16-23 hot from
  // iteration 1100: sum(max)/sum(mean) ~1.34 overall, ~1.65 per iteration from 1100.
  const std::vector<std::string> mixtral = {
      "--model", "mixtral-8x7b", "--gpu", "H100",           "--gpus", "16", "--tp", "2", "--ep",
      "8",       "--seq",        "4096",  "--global-batch", "64"};
  {
    FaultCase& c = w.Add("expert_imbalance_hot_expert", "expert_imbalance", true);
    w.Write(c, "expert_tokens.csv", ExpertTokensCsv(true, 1201));
    c.flags = mixtral;
    c.expect.iterations = {1100};
    c.expect.min_loss_fraction = 0.05;
  }
  {
    FaultCase& c = w.Add("expert_imbalance_clean", "expert_imbalance", false);
    w.Write(c, "expert_tokens.csv", ExpertTokensCsv(false, 1202));
    c.flags = mixtral;
  }
  // slow_kernels: FP32 SIMT GEMMs and unfused softmax attention; the control runs BF16 tensor-core
  // GEMMs and FlashAttention.
  {
    FaultCase& c = w.Add("slow_kernels_fp32_unfused", "slow_kernels", true);
    w.Write(c, "rank0.pt.trace.json",
            KinetoTrace("ampere_sgemm_128x64_nn",
                        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
                        "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)J"));
    c.expect.gpus = {0};
    c.expect.min_loss_fraction = 0.10;
  }
  {
    FaultCase& c = w.Add("slow_kernels_clean", "slow_kernels", false);
    w.Write(
        c, "rank0.pt.trace.json",
        KinetoTrace(
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize1x1x1_execute_segment_k_off_"
            "kernel__5x_cublas",
            "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, "
            "true, false, false, false, true, true, false>(Flash_fwd_params)J"));
  }
  // memory_fragmentation: the allocator reserves 82 GB of an H100's 85.5 GB for a 50 GB peak
  // allocated (32 GB, 39% never in use at the peak, reserved at 96% of the GPU); the control
  // reserves 55 GB for the same peak (9%).
  const std::string bf16_gemm =
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
      "cublas";
  const std::string flash =
      "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, true, "
      "false, false, false, true, true, false>(Flash_fwd_params)J";
  {
    FaultCase& c = w.Add("memory_fragmentation_reserved_near_full", "memory_fragmentation", true);
    w.Write(c, "rank0.pt.trace.json", KinetoTrace(bf16_gemm, flash, {40e9, 50e9, 82e9}));
    c.flags = {"--gpu", "H100"};
    c.expect.gpus = {0};
  }
  {
    FaultCase& c = w.Add("memory_fragmentation_clean", "memory_fragmentation", false);
    w.Write(c, "rank0.pt.trace.json", KinetoTrace(bf16_gemm, flash, {40e9, 50e9, 55e9}));
    c.flags = {"--gpu", "H100"};
  }
  // critical_path: each 20 ms step starts with 15 ms of host work (aten::nonzero) before six
  // kernels of 0.5 ms: the first step's critical path is ~85% CPU and the GPU idles ~85%; the
  // control is the GPU-bound trace above (18 ms of kernels per step, launched just in time).
  {
    FaultCase& c = w.Add("critical_path_host_bound", "critical_path", true);
    w.Write(c, "rank0.pt.trace.json", KinetoTrace(bf16_gemm, flash, {}, {15000.0, 500.0}));
    c.expect.gpus = {0};
    c.expect.min_loss_fraction = 0.5;
  }
  {
    FaultCase& c = w.Add("critical_path_clean", "critical_path", false);
    w.Write(c, "rank0.pt.trace.json", KinetoTrace(bf16_gemm, flash));
  }
}

}  // namespace paratune::faults
