// The kernel breakdown of one rank: HTA's kernel_type_df (GPU time labelled by which kernel types
// run at once), true per-name statistics with the top kernels per type, HTA's kernel_df with its
// top-k re-aggregation (get_gpu_kernel_breakdown, see docs/analysis.md), and paratune's finer
// kernel categories.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/kernel_class.h"
#include "analysis/rank_rows.h"

namespace paratune {

// One label of HTA's kernel_type_df: time on the rank's GPU labelled by which kernel types run.
struct KernelTypeShare {
  std::string label;  // "COMPUTATION", "COMPUTATION overlapping COMMUNICATION", ...
  double sum_s = 0;
};

// Per-name statistics of one kernel (true per-invocation figures).
struct KernelStat {
  std::string name;
  HtaKernelType type = HtaKernelType::kComputation;
  KernelCategory category = KernelCategory::kOther;
  int64_t count = 0;
  double sum_s = 0, max_s = 0, min_s = 0, mean_s = 0, stddev_s = 0;  // stddev: sample (n-1)
};

// A row of HTA's kernel_df as HTA builds it (with its top-k re-aggregation; see docs/analysis.md).
struct HtaKernelRow {
  std::string name;  // or "others"
  HtaKernelType type = HtaKernelType::kComputation;
  double sum_s = 0, max_s = 0, min_s = 0, mean_s = 0, stddev_s = 0;
};

struct CategoryShare {
  KernelCategory category = KernelCategory::kOther;
  int64_t count = 0;
  double sum_s = 0;  // sum of durations (overlap counted per kernel)
};

// HTA's kernel_type_df of the rank's GPU rows: a sweep over the merged COMPUTATION,
// COMMUNICATION and MEMORY intervals; zero rows dropped, sorted by sum descending (stable).
std::vector<KernelTypeShare> KernelTypeBreakdown(const RankRows& rows);

// HTA's kernel_df for one type from that type's per-name statistics: with more than
// `num_kernels` names, those past `num_kernels` or past the `duration_ratio` quantile of the
// running total become "others", and each surviving name reports its total as sum, max, min and
// mean (HTA's re-aggregation).
std::vector<HtaKernelRow> HtaKernelRows(HtaKernelType type, const std::vector<KernelStat>& stats, int num_kernels,
                                        double duration_ratio);

struct KernelTables {
  std::vector<KernelStat> top_kernels;         // per HTA type, top `top_kernels` by sum (ties by name)
  std::vector<HtaKernelRow> hta_kernel_table;  // HTA's kernel_df rows, COMPUTATION, COMMUNICATION, MEMORY
  std::vector<CategoryShare> categories;       // sorted by sum descending
};

// Per-name statistics of the rank's GPU rows (OTHER-type rows, syncs, left out).
KernelTables KernelStatistics(const RankRows& rows, int top_kernels, double duration_ratio);

}  // namespace paratune
