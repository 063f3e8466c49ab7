// Calibration from a team's own measured runs (issue 14, `paratune calibrate --from-runs`): the
// development fit (FitCalibration: coordinate descent over the eight fractions per GPU
// generation, inside the same bounds) on the runs of one cluster, its error before and after on
// those runs, and the error on runs held out of the fit (leave-one-out: each run predicted by a
// fit on all the others), which is what the fit is worth on the cluster's next job.
#pragma once

#include <limits>
#include <optional>
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
  double after = 0;   // with the chosen fit on all runs (what the written TOML gives)
  double loo = 0;     // with the chosen fractions fitted on all runs but this one
};

// One set of fractions tried: its fit on all runs and its errors (fractions, 0.05 = 5%).
struct RunsCalibrationCandidate {
  FitFractions fractions = FitFractions::kNone;
  CalibrationFit fit;         // on all rows; rounded to the 3 decimals the TOML writes
  std::vector<double> after;  // per row, as RunsCalibrationRow
  std::vector<double> loo;
  double mape_after = 0;
  double mape_loo = 0;
};

struct RunsCalibration {
  CalibrationFit fit;  // the chosen candidate's fit on all rows
  FitFractions chosen = FitFractions::kNone;
  int rounds = 0;
  std::vector<RunsCalibrationRow> rows;              // the runs used, in input order
  std::vector<RunsCalibrationCandidate> candidates;  // none, gemm, all (those tried)
  // Mean absolute percentage errors over `rows` (fractions) of the chosen candidate.
  double mape_before = 0;
  double mape_after = 0;
  double mape_loo = 0;
  // With `nested`: each run predicted by the whole procedure (the choice of set included) run on
  // all the others, so unbiased by the choice; NaN when not computed.
  double mape_nested = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> nested;  // per row, tokens/s per GPU
};

// Uses the runs FitCalibration uses (modelable, confidence not "low") whose layout the cost
// model accepts; at least two. The runs' own calibration is the starting point (the one the
// "before" column predicts with); runs of one generation must carry the same one. A held-out
// run that is the only one of its generation is predicted with the starting calibration.
//
// Without `only`, three nested sets of fractions are tried (FitFractions: none, GEMM only, all
// eight) and the one with the lowest leave-one-out error is chosen, the smaller set on a tie:
// with a few runs, eight fractions overfit where one or two do not (docs/runs.md). The chosen
// error is the least of three held-out estimates, so slightly optimistic (docs/validation.md
// measures by how much). With `only`, that set alone is fitted and chosen. The fits (n + 1 per
// set) run on up to `threads` threads (0: one per hardware thread). Throws InputError for fewer
// than two usable runs, differing starting calibrations or `rounds` out of range. `nested`
// (without `only`, at least three runs) also runs the whole procedure n more times, once per
// held-out run: about n times the work.
RunsCalibration CalibrateFromRuns(const std::vector<PublishedRun>& runs, int rounds, Progress* progress = nullptr,
                                  int threads = 0, std::optional<FitFractions> only = std::nullopt,
                                  bool nested = false);

}  // namespace paratune
