// Calibration from a team's own measured runs (issue 14, `paratune calibrate --from-runs`): the
// development fit (FitCalibration: coordinate descent over the eight fractions per GPU
// generation, inside the same bounds) on the runs of one cluster, its error before and after on
// those runs, and the error on runs held out of the fit (leave-one-out: each run predicted by a
// fit on all the others), which is what the fit is worth on the cluster's next job.
#pragma once

#include <string>
#include <vector>

#include "util/progress.h"
#include "validate/calibrate.h"
#include "validate/published_runs.h"

namespace paratune {

struct RunsCalibrationRow {
  std::string id;
  std::string generation;
  double measured_tokens_per_s_per_gpu = 0;
  double before = 0;  // predicted tokens/s per GPU with the runs' starting calibration
  double after = 0;   // with the fit on all runs (what the written TOML gives)
  double loo = 0;     // with the fit on all runs but this one
};

struct RunsCalibration {
  CalibrationFit fit;  // on all rows; fractions rounded to the 3 decimals the TOML writes
  int rounds = 0;
  std::vector<RunsCalibrationRow> rows;  // the runs used, in input order
  // Mean absolute percentage errors over `rows` (fractions, 0.05 = 5%).
  double mape_before = 0;
  double mape_after = 0;
  double mape_loo = 0;
};

// Uses the runs FitCalibration uses (modelable, confidence not "low") whose layout the cost
// model accepts; at least two. The runs' own calibration is the starting point (the one the
// "before" column predicts with); runs of one generation must carry the same one. A held-out
// run that is the only one of its generation is predicted with the starting calibration. The
// n + 1 fits run on up to `threads` threads (0: one per hardware thread). Throws InputError for
// fewer than two usable runs, differing starting calibrations or `rounds` out of range.
RunsCalibration CalibrateFromRuns(const std::vector<PublishedRun>& runs, int rounds, Progress* progress = nullptr,
                                  int threads = 0);

}  // namespace paratune
