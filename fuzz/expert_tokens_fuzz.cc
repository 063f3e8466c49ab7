// libFuzzer target: the expert token count reader must throw InputError or succeed on any bytes,
// and a parsed table keeps its promises (one expert count for every row, no negative count).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "trace/expert_tokens.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  paratune::LooksLikeExpertTokens(text);
  try {
    const paratune::ExpertTokens t = paratune::ParseExpertTokens(text, "fuzz.csv");
    for (const auto& row : t.rows) {
      if (row.tokens.size() != t.rows.front().tokens.size() || row.line < 2) std::abort();
      for (double v : row.tokens)
        if (!(v >= 0)) std::abort();
    }
  } catch (const paratune::InputError&) {
  }
  return 0;
}
