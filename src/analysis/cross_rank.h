// The view across ranks (two or more): the spread of each per-rank figure (compute, non-compute,
// idle, overlap, step time, data-loader share: min, median, max and the ranks at the extremes)
// and, per ProfilerStep#N held by two or more ranks, the spread of its CPU step time and the
// slowest rank. HTA has no such view.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace paratune {

struct RankAnalysis;  // trace_analysis.h

// The spread of one per-rank figure across the ranks (NaN figures, such as the overlap of a rank
// without communication, are left out).
struct RankSpread {
  std::string
      metric;  // "compute_pct", "non_compute_pct", "idle_pct", "comm_overlap_pct", "step_time_s", "dataloader_share"
  double min = 0, median = 0, max = 0;  // median: linear-interpolation quantile 0.5
  int min_rank = -1, max_rank = -1;
};

// One ProfilerStep#N across the ranks that have it: its CPU step time's spread and the slowest rank.
struct IterationSpread {
  int64_t step = 0;
  int ranks = 0;
  double min_s = 0, median_s = 0, max_s = 0;
  int slowest_rank = -1;  // -1: all ranks within 1 µs
};

struct CrossRankView {
  std::vector<RankSpread> spreads;          // in the metric order above; a metric no rank has is left out
  std::vector<IterationSpread> iterations;  // by step number
};

// Empty with fewer than two ranks.
CrossRankView CrossRank(const std::vector<RankAnalysis>& ranks);

}  // namespace paratune
