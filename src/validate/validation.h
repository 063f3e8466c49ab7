// Validation of the cost model against published runs: predicted vs measured tokens/s per GPU,
// absolute percentage errors with their summary statistics (overall and by group), and the
// pairwise ranking agreement between runs of the same model, GPU type, GPU count and sequence.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "validate/published_runs.h"

namespace paratune {

struct RunPrediction {
  const PublishedRun* run = nullptr;
  bool predicted = false;
  std::string reason;  // why no prediction
  double predicted_tokens_per_s_per_gpu = 0;
  double ape = 0;       // |predicted - measured| / measured, tokens/s per GPU (fraction)
  double step_ape = 0;  // the same on step time: |measured/predicted - 1|
  bool fits = true;     // the predicted memory fits the GPU
};

struct ErrorStats {
  int n = 0;
  double mean = 0, median = 0, p90 = 0, max = 0;  // fractions
};
ErrorStats Summarize(std::vector<double> errors);

struct GroupStats {
  std::string dimension;  // "gpu", "arch", "precision", "source", "confidence"
  std::string value;
  ErrorStats stats;
};

// Pairs of runs sharing model, GPU type, GPU count and sequence length, differing in layout,
// recomputation or precision, whose measured throughputs differ by more than `threshold`.
struct RankingStats {
  int pairs = 0;
  int agree = 0;
  std::vector<std::pair<std::string, std::string>> disagreements;  // ids (faster measured first)
};

struct ValidationReport {
  std::vector<RunPrediction> rows;
  ErrorStats overall;
  ErrorStats overall_without_low_confidence;
  std::vector<GroupStats> groups;
  RankingStats ranking;
  RankingStats ranking_without_low_confidence;  // pairs where neither run is low-confidence
  ErrorStats korthikanti_step_time;  // Korthikanti et al. 2022 Table 5 rows, step-time error
  // Sharding texts (zero_stage_or_fsdp) no family matched, with their rows' ids.
  std::vector<std::pair<std::string, std::vector<std::string>>> unmapped_sharding;
};

// Predicts every modelable run with its own cluster's calibration.
ValidationReport Validate(const std::vector<PublishedRun>& runs, double ranking_threshold = 0.05);

}  // namespace paratune
