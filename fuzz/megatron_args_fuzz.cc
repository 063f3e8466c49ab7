// libFuzzer target: ParseMegatronArgs must return a valid model and layout or throw InputError
// on any bytes. Anything else (another exception, a crash, a sanitizer report, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "layout/megatron_args.h"
#include "util/error.h"

// Parses `text` and checks what comes back. With `ignore_unknown` the parser reads past options
// Megatron-LM does not have (most fuzzed words are such), so the model and layout code is
// reached; without it the check of option names (data/megatron_flags.txt, the nearest name
// for a message) is exercised, its work bounded whatever the word.
void ParseAndCheck(const std::string& text, bool ignore_unknown) {
  try {
    const paratune::MegatronArgs a = paratune::ParseMegatronArgs(text, ignore_unknown);
    // What ParseMegatronArgs returns has passed ValidateModel and has positive sizes.
    const paratune::ModelSpec& m = a.model;
    if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0 || m.vocab <= 0) std::abort();
    if (m.is_moe() && (m.topk <= 0 || m.topk > m.experts)) std::abort();
    const paratune::Layout& l = a.layout;
    if (l.tp <= 0 || l.pp <= 0 || l.vp <= 0 || l.cp <= 0 || l.ep <= 0 || l.etp < 0 || l.mbs <= 0) std::abort();
    if (l.zero < 0 || l.zero > 3 || a.training.seq <= 0 || a.training.global_batch <= 0) std::abort();
  } catch (const paratune::InputError&) {
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ParseAndCheck(text, true);
  ParseAndCheck(text, false);
  return 0;
}
