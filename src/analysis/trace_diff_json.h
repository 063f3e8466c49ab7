// The trace diff (analysis/trace_diff.h) as the "trace_diff" member of paratune.analyze/1
// (docs/json.md), written and read back from one field list (util/json_two_way.h). Times in
// seconds; the per-name differences and the counts by change are derived and not read.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "analysis/trace_diff.h"
#include "util/json_fields.h"

namespace paratune {

nlohmann::json TraceDiffJson(const TraceDiff& d);
// Throws InputError naming the file and the field of a missing or mistyped member.
TraceDiff TraceDiffFromJson(const JsonView& node);

}  // namespace paratune
