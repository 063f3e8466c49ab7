#include "plan/plan_request.h"

#include "util/error.h"

namespace paratune {

const char* ObjectiveName(Objective o) { return o == Objective::kThroughput ? "throughput" : "memory"; }

Objective ParseObjective(const std::string& s, const std::string& where) {
  if (s == "throughput") return Objective::kThroughput;
  if (s == "memory") return Objective::kMemory;
  throw InputError(where + ": unknown objective '" + s + "' (expected throughput or memory)");
}

}  // namespace paratune
