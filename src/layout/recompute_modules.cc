// The text form of Layout::recompute_modules (layout/layout.h): Megatron-LM's
// --recompute-modules list.
#include <string>

#include "layout/layout.h"
#include "util/error.h"

namespace paratune {

uint8_t ParseRecomputeModules(const std::string& list, const std::string& where) {
  uint8_t bits = 0;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find_first_of(", ", start);
    if (end == std::string::npos) end = list.size();
    const std::string name = list.substr(start, end - start);
    if (!name.empty()) bits |= RecomputeModuleBit(kRecomputeModuleNames.Parse(name, where, "recompute module"));
    start = end + 1;
  }
  if (bits == 0)
    throw InputError(where + ": no recompute module given (expected some of " + kRecomputeModuleNames.List(", ") + ")");
  return bits;
}

std::string RecomputeModulesText(uint8_t modules) {
  std::string s;
  for (size_t i = 0; i < kRecomputeModuleNames.canonical; ++i)
    if (modules & RecomputeModuleBit(kRecomputeModuleNames.entries[i].first)) {
      if (!s.empty()) s += ',';
      s += kRecomputeModuleNames.entries[i].second;
    }
  return s;
}

}  // namespace paratune
