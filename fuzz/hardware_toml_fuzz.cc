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
    if (!(g->bf16_flops > 0) || !(g->hbm_bytes > 0)) std::abort();
    const paratune::Calibration& c = g->calibration;
    for (const paratune::CalibrationField& f : paratune::kCalibrationFields)
      if (!(c.*f.value > 0 && c.*f.value <= 1)) std::abort();
  }
  // Every fabric (each GPU's reference system and every [fabric.NAME]) is usable by placement.
  for (const paratune::Fabric* f : hw.Fabrics()) {
    if (f->gpus_per_node <= 0 || f->nvlink_domain <= 0 || f->nics_per_node <= 0) std::abort();
    if (!(f->net_bytes_per_s() > 0) || !(f->nvlink_bytes_per_s > 0) || !(f->spine_oversubscription >= 1)) std::abort();
    if (f->nvlink_domain < f->gpus_per_node && f->nvlink_domain != 1) std::abort();
  }
  return 0;
}
