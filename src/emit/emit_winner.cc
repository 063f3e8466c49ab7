#include "emit/emit_winner.h"

#include <fmt/format.h>

#include "util/error.h"

namespace paratune {

EmittedWinner EmitWinner(Framework f, const PlanResult& result, const PlanRequest& request) {
  std::string refused;
  for (size_t i = 0; i < result.ranked.size(); ++i) {
    const Estimate& e = result.ranked[i];
    const EmitInput in{request.model, request.cluster, e.training, e.layout};
    const std::string why = FrameworkRefuses(f, in);
    if (why.empty()) return {EmitSettings(f, in), i, refused};
    if (refused.empty()) refused = why;
  }
  throw InputError(fmt::format("--emit {}: none of the {} ranked layouts can be emitted: {}", FrameworkName(f),
                               result.ranked.size(), refused));
}

}  // namespace paratune
