// The iterations of one rank: each kept ProfilerStep#N range on the CPU, the GPU events launched
// inside it (a GPU event belongs to the step in which its CPU launch started), their temporal
// breakdown and overlap, the data-loader time (union of data-loader operators inside the step),
// and the step-time statistics.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "analysis/rank_rows.h"
#include "timeline/breakdown.h"
#include "util/stats.h"

namespace paratune {

// One ProfilerStep#N of a rank.
struct IterationStats {
  int64_t step = 0;
  int64_t cpu_start_ns = 0;   // ProfilerStep start, in the file's time base (RankTrace::ts_ns)
  int64_t gpu_start_ns = -1;  // first GPU event it launched; -1: none
  double cpu_step_s = 0;      // the ProfilerStep range on the CPU
  double dataloader_s = 0;    // union of data-loader ops inside it
  GpuTimeBreakdown gpu;       // over the GPU events launched from inside it
  double comm_overlap_pct = std::numeric_limits<double>::quiet_NaN();
};

struct IterationBreakdown {
  std::vector<IterationStats> iterations;  // by CPU start
  SummaryStats step_time;                  // over the iterations' cpu_step_s
  double dataloader_share = 0;             // sum dataloader_s / sum cpu_step_s (0 without steps)
  std::vector<int64_t> gpu_row_steps;      // parallel to RankRows::gpu: ProfilerStep#N each was launched in, or -1
};

IterationBreakdown Iterations(const RankRows& rows);

}  // namespace paratune
