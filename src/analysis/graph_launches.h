// GraphLaunchStats: the GPU work a rank ran through CUDA graphs. A graph replay is one
// cudaGraphLaunch (or the driver's cuGraphLaunch) on the CPU, and every kernel, memcpy and memset
// of the graph carries that call's correlation id in the trace (CUPTI's graph-launch correlation,
// kineto's CuptiActivityProfiler; the shared hta/negative_queue_length_values_check trace: 70
// launches of 20 GPU events each, every one with its launch's id). HTA's launch statistics pair
// each of those events with the one launch, as if each were launched alone; here they are
// attributed to their launch and its step: how much of the GPU time ran from graphs, how many
// events a replay holds, what the CPU spent launching them, and how long a replay runs on the GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/rank_rows.h"

namespace paratune {

struct GraphStepStats {
  int64_t step = -1;  // ProfilerStep#N the launches started in; -1: outside any
  int64_t launches = 0;
  int64_t gpu_events = 0;
  double gpu_time_s = 0;
};

struct GraphLaunchStats {
  int64_t launches = 0;               // graph launches with at least one analysed GPU event
  int64_t gpu_events = 0;             // the GPU events they launched
  double gpu_time_s = 0;              // the events' summed durations
  double gpu_time_share = 0;          // of the summed durations of all analysed GPU events (fraction)
  double cpu_launch_s = 0;            // the launch calls' summed durations
  double mean_replay_span_s = 0;      // per launch: its last event's end - its first event's start
  std::vector<GraphStepStats> steps;  // by step
};

// Over the GPU event set (RankRows::gpu) and its steps (IterationBreakdown::gpu_row_steps,
// parallel to it).
GraphLaunchStats GraphLaunches(const RankRows& rows, const std::vector<int64_t>& gpu_row_steps);

// "cudaGraphLaunch", "cudaGraphLaunch_v10000", "cuGraphLaunch" and their _ptsz variants.
bool IsGraphLaunch(std::string_view name);

}  // namespace paratune
