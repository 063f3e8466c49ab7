#include "hardware/gpu_spec.h"

#include <algorithm>
#include <cctype>

#include "util/error.h"

namespace paratune {

const char* PrecisionName(Precision p) {
  switch (p) {
    case Precision::kBf16: return "bf16";
    case Precision::kFp8: return "fp8";
    case Precision::kFp4: return "fp4";
  }
  return "?";
}

Precision ParsePrecision(const std::string& s, const std::string& where) {
  std::string l = s;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return std::tolower(c); });
  if (l == "bf16" || l == "fp16") return Precision::kBf16;
  if (l == "fp8" || l == "mxfp8") return Precision::kFp8;
  if (l == "fp4" || l == "nvfp4" || l == "mxfp4") return Precision::kFp4;
  throw InputError(where + ": unknown precision '" + s + "' (expected bf16, fp8 or fp4)");
}

double Calibration::gemm_efficiency(Precision p) const {
  switch (p) {
    case Precision::kBf16: return gemm_bf16;
    case Precision::kFp8: return gemm_fp8;
    case Precision::kFp4: return gemm_fp4;
  }
  return gemm_bf16;
}

double GpuSpec::peak_flops(Precision p) const {
  switch (p) {
    case Precision::kBf16: return bf16_flops;
    case Precision::kFp8: return fp8_flops;
    case Precision::kFp4: return fp4_flops;
  }
  return 0;
}

}  // namespace paratune
