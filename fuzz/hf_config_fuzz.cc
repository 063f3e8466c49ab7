// libFuzzer target: ParseHfConfig must return a valid ModelSpec or throw InputError on any bytes.
// Anything else (another exception, a crash, a sanitizer report, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "model/hf_config.h"
#include "model/model_spec.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const paratune::ModelSpec m = paratune::ParseHfConfig(text, "fuzz.json", "fuzz");
    // What ParseHfConfig returns has passed ValidateModel.
    if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0 || m.vocab <= 0) std::abort();
    if (m.is_moe() && (m.topk <= 0 || m.topk > m.experts)) std::abort();
    if (m.moe_layers() < 0 || m.moe_layers() > m.layers) std::abort();
  } catch (const paratune::InputError&) {
  }
  return 0;
}
