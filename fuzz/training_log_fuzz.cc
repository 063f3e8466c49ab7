// libFuzzer target: the training-log reader (Megatron-LM, torchtitan, tokens/s CSV) must throw
// InputError or succeed on any bytes, and what it returns keeps the reader's promises.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "trace/training_log.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)paratune::LooksLikeTrainingLog(text.substr(0, 4096));
  try {
    const paratune::TrainingLog log = paratune::ParseTrainingLog(text, "fuzz.log");
    if (log.iterations.empty()) std::abort();  // a log without iterations is an InputError
    for (const auto& r : log.iterations) {
      if (r.line < 1 || r.interval_iterations < 0) std::abort();
      if (!std::isnan(r.elapsed_per_iteration_s) && !(r.elapsed_per_iteration_s >= 0)) std::abort();
    }
    for (const auto& t : log.timers)
      if (!(t.max_s >= 0) || (!std::isnan(t.min_s) && t.min_s > t.max_s)) std::abort();
    for (const auto& s : log.stragglers)
      if (s.min_etpt_rank < 0 || s.max_rtt_rank < 0 || !(s.min_etpt_flops >= 0)) std::abort();
  } catch (const paratune::InputError&) {
  }
  return 0;
}
