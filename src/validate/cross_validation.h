// Leave-one-source-out: each source of a set of published runs predicted by the calibration
// fitted without it (validate/calibrate.h from the same starting values), beside the in-sample
// figure (the fit on every source). The fidelity figure the calibration choices are made on
// (docs/validation.md, "Out of sample").
#pragma once

#include <string>
#include <vector>

#include "util/progress.h"
#include "validate/calibrate.h"
#include "validate/validation.h"

namespace paratune {

struct SourceHoldout {
  std::string source;
  ErrorStats in_sample;  // its rows predicted by the fit on every source
  ErrorStats held_out;   // its rows predicted by the fit without them
  // Its rows' GPU generations no other source covers: predicted with the starting values.
  std::vector<std::string> uncovered_generations;
};

struct CrossValidation {
  std::vector<SourceHoldout> sources;  // in order of first appearance
  ErrorStats in_sample;                // every modelled row, the fit on every source
  ErrorStats held_out;                 // every modelled row, its source held out
};

// `runs` carry their starting calibration (the catalog they were read with). Throws InputError
// when fewer than two sources have modelable rows.
CrossValidation CrossValidateBySource(const std::vector<PublishedRun>& runs, int rounds = 6,
                                      Progress* progress = nullptr);

}  // namespace paratune
