// GpuSpec: one GPU type and the node/network it ships in, in SI units (FLOP/s, bytes, bytes/s,
// seconds). Bandwidths are per GPU and per direction. Calibration holds the few achievable
// fractions of peak for the GPU's generation (data/calibration.toml).
#pragma once

#include <string>

namespace paratune {

enum class Precision { kBf16, kFp8, kFp4 };

const char* PrecisionName(Precision p);
// Parses "bf16", "fp8" or "fp4" (also "fp16" as bf16-class 16-bit); throws InputError.
Precision ParsePrecision(const std::string& s, const std::string& where);

// Achievable fractions of the datasheet peaks, per GPU generation. Documented in
// docs/cost-model.md; fitted on the development data by the validation issue.
struct Calibration {
  double gemm_bf16 = 0.75;     // large BF16 GEMM throughput / dense BF16 peak
  double gemm_fp8 = 0.65;      // large FP8 GEMM throughput / dense FP8 peak
  double gemm_fp4 = 0.55;      // large FP4 GEMM throughput / dense FP4 peak
  double attention = 0.50;     // FlashAttention forward FLOP rate / dense BF16 peak
  double hbm = 0.85;           // achieved / datasheet HBM bandwidth for streaming kernels
  double nvlink = 0.80;        // NCCL bus bandwidth / NVLink per-direction bandwidth
  double net = 0.85;           // NCCL bus bandwidth / NIC per-direction bandwidth
  double gemm_efficiency(Precision p) const;
};

struct GpuSpec {
  std::string name;         // catalog key, e.g. "B300"
  std::string description;
  std::string generation;   // "ampere", "hopper", "blackwell": selects the Calibration
  std::string source;       // where the numbers come from
  std::string note;

  double bf16_flops = 0;  // dense tensor-core peaks, FLOP/s; 0 = unsupported
  double fp8_flops = 0;
  double fp4_flops = 0;
  double fp32_flops = 0;  // non-tensor FP32
  double hbm_bytes = 0;
  double hbm_bytes_per_s = 0;
  int gpus_per_node = 0;
  int nvlink_domain = 0;           // GPUs that share one NVLink fabric (8 HGX, 72 NVL72)
  double nvlink_bytes_per_s = 0;   // per GPU, per direction
  double nvlink_latency_s = 0;
  double net_bytes_per_s = 0;      // scale-out NIC bandwidth per GPU, per direction
  double net_latency_s = 0;
  int sm_count = 0;
  double tdp_w = 0;

  Calibration calibration;

  // Dense peak for matrix multiplies in precision p; 0 if the GPU has no such tensor cores.
  double peak_flops(Precision p) const;
};

// A cluster of identical nodes.
struct ClusterSpec {
  GpuSpec gpu;
  int gpus = 0;  // world size

  int nodes() const { return (gpus + gpu.gpus_per_node - 1) / gpu.gpus_per_node; }
};

}  // namespace paratune
