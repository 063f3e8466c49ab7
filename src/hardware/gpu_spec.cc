#include "hardware/gpu_spec.h"

namespace paratune {

double Calibration::gemm_efficiency(Precision p) const {
  switch (p) {
    case Precision::kBf16:
    case Precision::kFp16: return gemm_bf16;  // the same 16-bit tensor-core path
    case Precision::kFp8: return gemm_fp8;
    case Precision::kFp4: return gemm_fp4;
  }
  return gemm_bf16;
}

double GpuSpec::peak_flops(Precision p) const {
  switch (p) {
    case Precision::kBf16: return bf16_flops;
    case Precision::kFp16: return fp16_flops;
    case Precision::kFp8: return fp8_flops;
    case Precision::kFp4: return fp4_flops;
  }
  return 0;
}

}  // namespace paratune
