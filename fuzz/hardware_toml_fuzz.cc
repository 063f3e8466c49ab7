// libFuzzer target: merging any bytes as a --hardware TOML file into the built-in catalog must
// either succeed, leaving a consistent catalog, or throw InputError. Anything else (for example a
// toml++ exception other than parse_error escaping, a crash or a sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "hardware/hardware_catalog.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const paratune::HardwareCatalog kBuiltIn = paratune::HardwareCatalog::BuiltIn();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  paratune::HardwareCatalog hw = kBuiltIn;
  try {
    hw.Merge(text, "fuzz.toml");
  } catch (const paratune::InputError&) {
    return 0;
  }
  for (const paratune::GpuSpec* g : hw.All()) {
    if (&hw.Find(g->name) != g) std::abort();
    if (!(g->bf16_flops > 0) || !(g->hbm_bytes > 0) || g->gpus_per_node <= 0 || g->nvlink_domain <= 0)
      std::abort();
    const paratune::Calibration& c = g->calibration;
    for (double x : {c.gemm_bf16, c.gemm_fp8, c.gemm_fp4, c.attention, c.hbm, c.nvlink, c.net})
      if (!(x > 0 && x <= 1)) std::abort();
  }
  return 0;
}
