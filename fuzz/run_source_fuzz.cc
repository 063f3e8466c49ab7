// libFuzzer target: a file given to `paratune runs record` (the --json output of analyze,
// diagnose, estimate, plan or cluster, or a training log) must be read or rejected with one
// InputError on any bytes. A read file keeps the readers' promises: a kind, the SHA-256 of the
// bytes, every figure NaN or finite, series with one y per x, and a record that the registry's
// JSON renders (runs show --json).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "runs/runs_json.h"
#include "runs/sha256.h"
#include "runs/source_reader.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1 << 20)) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    paratune::ReadSource s = paratune::ReadRunSourceText("fuzz.json", text);
    if (s.kind.empty() || s.sha256 != paratune::Sha256Hex(text)) __builtin_trap();
    for (const paratune::Figure& f : s.part.figures)
      for (double v : {f.measured, f.predicted})
        if (!std::isnan(v) && !std::isfinite(v)) __builtin_trap();
    for (const paratune::RunSeries& series : s.part.series)
      if (series.x.size() != series.y.size()) __builtin_trap();
    s.part.name = "fuzz";
    (void)paratune::RunShowJson(s.part).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const paratune::InputError&) {
  }
  return 0;
}
