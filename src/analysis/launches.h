// HTA's CUDA kernel launch statistics (get_cuda_kernel_launch_stats) of one rank:
// cudaLaunchKernel(ExC), cudaMemcpyAsync and cudaMemsetAsync calls joined to the GPU event they
// launched by correlation id; launch delay = max(0, GPU start - launch end); counts of short
// kernels, slow launches and long delays against HTA's plot thresholds.
#pragma once

#include <cstdint>

#include "analysis/rank_rows.h"

namespace paratune {

struct LaunchStats {
  int64_t launches = 0;       // matched CPU launch / GPU event pairs
  double cpu_duration_s = 0;  // sum of launch-call durations
  double gpu_duration_s = 0;  // sum of the launched events' durations
  double launch_delay_s = 0;  // sum of max(0, gpu start - cpu end)
  double mean_launch_delay_s = 0;
  double max_launch_delay_s = 0;
  int64_t short_kernels = 0;          // cpu <= cutoff and gpu < cpu: launch overhead dominates
  int64_t runtime_outliers = 0;       // cpu > runtime cutoff
  int64_t launch_delay_outliers = 0;  // delay > delay cutoff
};

// Over the kept rows. HTA inner-joins CPU and GPU rows on correlation; should a file repeat a
// correlation id, each GPU event pairs with the last CPU launch row of that id (file order).
LaunchStats LaunchStatistics(const RankRows& rows, double runtime_cutoff_s, double delay_cutoff_s);

}  // namespace paratune
