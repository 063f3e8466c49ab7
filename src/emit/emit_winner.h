// EmitWinner: the framework settings of a plan's winner, that is of the fastest ranked layout the
// framework runs (a faster one it refuses is named). What `paratune plan --emit` writes.
#pragma once

#include <cstddef>
#include <string>

#include "emit/emit.h"
#include "plan/planner.h"

namespace paratune {

struct EmittedWinner {
  Emitted emitted;
  size_t rank = 0;      // index in the ranking of the layout emitted (0: the plan's winner)
  std::string refused;  // with rank > 0: why the framework refuses the first ranked layout
};

// Throws InputError when the framework refuses every ranked layout.
EmittedWinner EmitWinner(Framework f, const PlanResult& result, const PlanRequest& request);

}  // namespace paratune
