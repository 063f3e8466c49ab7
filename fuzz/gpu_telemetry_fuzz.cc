// libFuzzer target: the GPU telemetry reader (nvidia-smi --query-gpu CSV, dcgmi dmon text, DCGM
// exporter Prometheus text through util/prometheus_text.h) must throw InputError or succeed on
// any bytes, and a capture it reads keeps the reader's promises.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "trace/gpu_telemetry.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  paratune::LooksLikeGpuTelemetry(text);
  try {
    const paratune::GpuTelemetry t = paratune::ParseGpuTelemetry(text, "fuzz.csv");
    if (t.samples.empty() || t.gpus <= 0 || t.sample_count <= 0) std::abort();
    int last_sample = 0;
    for (const auto& s : t.samples) {
      if (s.gpu < 0 || s.gpu > 1023 || s.line <= 0) std::abort();
      if (s.sample < last_sample || s.sample >= t.sample_count) std::abort();  // samples in file order
      last_sample = s.sample;
      if (!std::isnan(s.util_fraction) && (s.util_fraction < 0 || s.util_fraction > 1)) std::abort();
      if (!std::isnan(s.sm_clock_hz) && s.sm_clock_hz < 0) std::abort();
      paratune::ClockReasonNames(s.reasons);
    }
  } catch (const paratune::InputError&) {
  }
  return 0;
}
