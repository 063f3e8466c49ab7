// The human-readable text of a trace diff (analysis/trace_diff.h): what was compared, the counts
// by change, and the names whose total time changed most.
#pragma once

#include <string>

#include "analysis/trace_diff.h"

namespace paratune::cli {

// `top`: rows listed (the largest changes in total time; ProfilerStep rows left out, as HTA's
// trace-diff guide does, since their time is the step itself).
std::string FormatTraceDiff(const TraceDiff& d, int top);

}  // namespace paratune::cli
