// libFuzzer target: reading `paratune analyze --json` output back (diagnose's `analysis` input)
// must throw InputError or succeed on any bytes, and every diagnosis rule must then run on the
// analysis it read, whatever its figures, without crashing.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analysis/analysis_json.h"
#include "diagnose/diagnose.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1 << 20)) return 0;
  try {
    paratune::DiagnoseInputs in;
    in.files.push_back({"fuzz.json", paratune::InputKind::kAnalysisJson});
    in.analysis = paratune::ParseAnalysisJson(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    const paratune::Diagnosis d = paratune::Diagnose(in);
    if (d.findings.empty()) __builtin_trap();  // at least the all-clear summary
  } catch (const paratune::InputError&) {
  }
  return 0;
}
