// Pairwise ranking of published runs: which pairs a planner must order correctly (same model,
// GPU type, GPU count and sequence length, a different layout, recomputation or precision, and
// measured throughputs more than a threshold apart), and how many a set of predictions orders
// as measured. `validate` reports it; the calibration fit keeps it from getting worse.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "validate/published_runs.h"

namespace paratune {

// Measured throughputs closer than this (relative to the slower) are not a ranking pair: 5% is
// inside the run-to-run spread the published sources quote.
inline constexpr double kRankingThreshold = 0.05;

// True when a and b are a ranking pair: same model, GPU, GPU count and sequence length, not the
// same layout, recomputation and precision, measured throughputs more than `threshold` apart.
bool RankingPair(const PublishedRun& a, const PublishedRun& b, double threshold = kRankingThreshold);

struct PairOrder {
  int pairs = 0;
  int agree = 0;
  std::vector<std::pair<size_t, size_t>> disagreements;  // indices (faster measured first)
};

// Orders every ranking pair of `runs` by `predicted_tokens_per_s_per_gpu` (same indices; a
// negative value marks a run not predicted, left out).
PairOrder OrderPairs(const std::vector<const PublishedRun*>& runs,
                     const std::vector<double>& predicted_tokens_per_s_per_gpu, double threshold = kRankingThreshold);

}  // namespace paratune
