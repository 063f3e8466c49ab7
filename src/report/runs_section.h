// What the sections of the run registry's documents (paratune.runs.list/1, .show/1,
// .compare/1, .baselines/1; docs/runs.md) share: the metric table each document carries
// (`metrics[]`: name, unit, better, step_term, description, written once in the registry's
// kMetrics), so that no section repeats the list of metrics.
#pragma once

#include <string>
#include <vector>

#include "util/json_fields.h"

namespace paratune {

struct RunMetric {
  std::string name, unit, description;
  bool higher_is_better = true;
  bool step_term = false;
};

// The document's `metrics` array. Throws InputError naming the field when it is malformed.
std::vector<RunMetric> RunMetrics(const JsonFields& f);

// The value of figures.<metric>.<side> of a run object ("measured" or "predicted"); NaN when
// absent or null.
double RunFigure(const JsonView& run, const std::string& metric, const std::string& side);

}  // namespace paratune
