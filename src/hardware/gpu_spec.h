// GpuSpec: one GPU chip in SI units (FLOP/s, bytes, bytes/s): its tensor-core peaks per precision,
// HBM capacity and bandwidth, SM count and power. How chips are wired together (nodes, NVLink
// domains, NICs, switches) is the fabric's (hardware/fabric.h). Calibration holds the few
// achievable fractions of peak for the chip's generation (data/calibration.toml).
#pragma once

#include <string>
#include <vector>

#include "util/enum_names.h"

namespace paratune {

// The precision of the matrix multiplies. FP16 and BF16 run at the same tensor-core rate on every
// catalog GPU, but FP16 training also scales the loss (docs/cost-model.md, "Precision").
enum class Precision { kBf16, kFp16, kFp8, kFp4 };

inline constexpr EnumNames<Precision, 7> kPrecisionNames{{{{Precision::kBf16, "bf16"},
                                                           {Precision::kFp16, "fp16"},
                                                           {Precision::kFp8, "fp8"},
                                                           {Precision::kFp4, "fp4"},
                                                           {Precision::kFp8, "mxfp8"},
                                                           {Precision::kFp4, "nvfp4"},
                                                           {Precision::kFp4, "mxfp4"}}},
                                                         4};

inline const char* PrecisionName(Precision p) { return kPrecisionNames.Name(p); }
// Parses a precision name (also mxfp8, nvfp4, mxfp4); throws InputError naming `where`.
inline Precision ParsePrecision(const std::string& s, const std::string& where) {
  return kPrecisionNames.Parse(s, where, "precision");
}
// FP8 and FP4: GEMM inputs are cast to 8 or 4 bits (and Transformer Engine caches weight copies).
inline bool IsQuantized(Precision p) { return p == Precision::kFp8 || p == Precision::kFp4; }

// Achievable fractions of the datasheet peaks, per GPU generation. Documented in
// docs/cost-model.md; fitted on the development data (docs/validation.md).
struct Calibration {
  double gemm_bf16 = 0.75;      // large BF16 (and FP16) GEMM throughput / dense peak
  double gemm_fp8 = 0.65;       // large FP8 GEMM throughput / dense FP8 peak
  double gemm_fp4 = 0.55;       // large FP4 GEMM throughput / dense FP4 peak
  double attention = 0.50;      // FlashAttention forward FLOP rate / dense BF16 peak
  double hbm = 0.85;            // achieved / datasheet HBM bandwidth for streaming kernels
  double nvlink = 0.80;         // NCCL bus bandwidth / NVLink per-direction bandwidth
  double net = 0.85;            // NCCL bus bandwidth / NIC per-direction bandwidth
  double pcie = 0.50;           // NCCL bus bandwidth / PCIe per-direction bandwidth (no NVLink)
  double nccl_sm_share = 0.18;  // SMs an NCCL collective's channels hold / the GPU's SMs
  // Host (CPU) time to issue one kernel from the framework's Python code: PyTorch's dispatcher,
  // autograd bookkeeping and cudaLaunchKernel, seconds. PyTorch's operator micro-benchmarks
  // measure 2.3-3.4 us for a bare op (pytorch/pytorch#32194); with autograd and a module's
  // Python around it 5-25 us (cost/host_launch.h).
  double host_op_s = 8e-6;
  double gemm_efficiency(Precision p) const;
};

// The fields of a Calibration with their names in data/calibration.toml: the one list the
// catalog reader, the fit and the JSON iterate.
struct CalibrationField {
  const char* key;
  double Calibration::*value;
};
inline constexpr CalibrationField kCalibrationFields[] = {
    {"gemm_bf16", &Calibration::gemm_bf16},
    {"gemm_fp8", &Calibration::gemm_fp8},
    {"gemm_fp4", &Calibration::gemm_fp4},
    {"attention", &Calibration::attention},
    {"hbm", &Calibration::hbm},
    {"nvlink", &Calibration::nvlink},
    {"net", &Calibration::net},
    {"pcie", &Calibration::pcie},
    {"nccl_sm_share", &Calibration::nccl_sm_share},
    {"host_op_s", &Calibration::host_op_s},
};

// The GEMM fraction that applies to precision p (FP16 shares BF16's: the same tensor-core path).
double Calibration::*GemmFraction(Precision p);

struct GpuSpec {
  std::string name;  // catalog key, e.g. "B300"
  std::string description;
  std::string generation;  // "ampere", "hopper", "blackwell": selects the Calibration
  std::string source;      // where the numbers come from
  std::string note;
  std::vector<std::string> aliases;  // other names that find this GPU (HardwareCatalog::Find)

  double bf16_flops = 0;  // dense tensor-core peaks, FLOP/s; 0 = unsupported
  double fp16_flops = 0;
  double fp8_flops = 0;
  double fp4_flops = 0;
  double fp32_flops = 0;  // non-tensor FP32
  double hbm_bytes = 0;
  double hbm_bytes_per_s = 0;
  int sm_count = 0;
  // Exponentials (MUFU.EX2) one SM's special function units complete per clock: 16 on Ampere,
  // Hopper and Blackwell (CUDA C++ Programming Guide, "Arithmetic Instructions" throughput table,
  // base-2 exponential), 32 on Blackwell Ultra, which doubles SFU throughput (NVIDIA Technical
  // Blog, "Making Softmax More Efficient with NVIDIA Blackwell Ultra", 2025).
  int sfu_exp_per_clk_per_sm = 16;
  double tdp_w = 0;

  Calibration calibration;

  // Dense peak for matrix multiplies in precision p; 0 if the GPU has no such tensor cores.
  double peak_flops(Precision p) const;
};

}  // namespace paratune
