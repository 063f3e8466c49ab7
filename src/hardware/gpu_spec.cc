#include "hardware/gpu_spec.h"

namespace paratune {

double Calibration::*GemmFraction(Precision p) {
  switch (p) {
    case Precision::kBf16:
    case Precision::kFp16:
      return &Calibration::gemm_bf16;  // the same 16-bit tensor-core path
    case Precision::kFp8:
      return &Calibration::gemm_fp8;
    case Precision::kFp4:
      return &Calibration::gemm_fp4;
  }
  return &Calibration::gemm_bf16;
}

double Calibration::gemm_efficiency(Precision p) const { return this->*GemmFraction(p); }

double GpuSpec::peak_flops(Precision p) const {
  switch (p) {
    case Precision::kBf16:
      return bf16_flops;
    case Precision::kFp16:
      return fp16_flops;
    case Precision::kFp8:
      return fp8_flops;
    case Precision::kFp4:
      return fp4_flops;
  }
  return 0;
}

}  // namespace paratune
