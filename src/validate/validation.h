// Validation of the cost model against published runs: predicted vs measured tokens/s per GPU,
// absolute percentage errors with their summary statistics (overall and by group), and the
// pairwise ranking agreement between runs of the same model, GPU type, GPU count and sequence.
// Where a row carries a measured peak memory (and SimuMax's predictions, simumax_runs_dev.csv),
// the same for peak memory and step time, ours beside SimuMax's on the same rows.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "validate/published_runs.h"
#include "validate/ranking.h"
#include "util/progress.h"

namespace paratune {

struct RunPrediction {
  const PublishedRun* run = nullptr;
  bool predicted = false;
  std::string reason;  // why no prediction
  double predicted_tokens_per_s_per_gpu = 0;
  double ape = 0;       // |predicted - measured| / measured, tokens/s per GPU (fraction)
  double step_ape = 0;  // the same on step time: |measured/predicted - 1|
  bool fits = true;     // the predicted memory fits the GPU
  double predicted_step_time_s = 0;
  // The peak stage's allocated bytes: what torch.cuda.max_memory_allocated counts (no CUDA
  // context, NCCL buffers or caching-allocator slack; docs/cost-model.md section 4).
  double predicted_peak_allocated_bytes = 0;
  // Errors (fractions) against the row's optional columns, where it has them.
  std::optional<double> memory_ape;          // predicted vs measured peak memory
  std::optional<double> simumax_memory_ape;  // SimuMax's prediction vs measured
  std::optional<double> step_time_ape;       // predicted vs target_step_time_s
  std::optional<double> simumax_step_time_ape;
};

struct ErrorStats {
  int n = 0;
  double mean = 0, median = 0, p90 = 0, max = 0;  // fractions
};
ErrorStats Summarize(std::vector<double> errors);

// The dimensions the errors are grouped by, in report order: the one list the report, the
// JSON and the tests iterate.
struct GroupDimension {
  const char* name;
  std::string (*value)(const PublishedRun&);
};
extern const GroupDimension kGroupDimensions[5];  // gpu, arch, precision, source, confidence

struct GroupStats {
  std::string dimension;  // a kGroupDimensions name
  std::string value;
  ErrorStats stats;
};

// Our error and SimuMax's over the same rows.
struct ComparedStats {
  ErrorStats ours;     // every row with the measurement
  ErrorStats simumax;  // the rows that also give SimuMax's prediction
  ErrorStats ours_on_simumax_rows;
};
struct GroupComparison {
  std::string dimension;
  std::string value;
  ComparedStats stats;
};
struct ComparedErrors {
  ComparedStats overall;
  std::vector<GroupComparison> groups;
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
  ErrorStats korthikanti_step_time;             // Korthikanti et al. 2022 Table 5 rows, step-time error
  // Rows with measured_peak_mem_gib: peak allocated memory, ours and SimuMax's.
  ComparedErrors memory;
  // Rows with simumax_pred_step_time_s and target_step_time_s: step time, ours and SimuMax's.
  ComparedErrors step_time;
  // Sharding texts (zero_stage_or_fsdp) no family matched, with their rows' ids.
  std::vector<std::pair<std::string, std::vector<std::string>>> unmapped_sharding;
};

// Predicts every modelable run with its own cluster's calibration; `progress` is told the rows
// done ("validating, rows") after each.
ValidationReport Validate(const std::vector<PublishedRun>& runs, double ranking_threshold = kRankingThreshold,
                          Progress* progress = nullptr);

}  // namespace paratune
