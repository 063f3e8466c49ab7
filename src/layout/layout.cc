#include "layout/layout.h"

#include "util/error.h"

namespace paratune {

const char* RecomputeName(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "none";
    case Recompute::kSelective: return "selective";
    case Recompute::kFull: return "full";
  }
  return "?";
}

Recompute ParseRecompute(const std::string& s, const std::string& where) {
  if (s == "none") return Recompute::kNone;
  if (s == "selective") return Recompute::kSelective;
  if (s == "full") return Recompute::kFull;
  throw InputError(where + ": unknown recompute mode '" + s + "' (expected none, selective or full)");
}

}  // namespace paratune
