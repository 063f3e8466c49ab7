#include "analysis/graph_launches.h"

#include <gtest/gtest.h>

#include "analysis/test_events.h"
#include "analysis/trace_analysis.h"
#include "trace/kineto_reader.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// By hand: two steps (the last dropped by HTA's filter); in step 1 a graph launch (corr 5) whose
// three events run 10 + 20 + 5 us over [110, 160], and a plain kernel (corr 6, 15 us) beside it.
TEST(GraphLaunches, EventsAreAttributedToTheirLaunchAndStep) {
  RankTrace t;
  t.rank = 0;
  t.names = {"ProfilerStep#1", "ProfilerStep#2", "cudaGraphLaunch", "cudaLaunchKernel", "gemm", "copy", "add"};
  t.events = {test_events::At(0, EventKind::kUserAnnotation, 0, 100, -1, -1),
              test_events::At(1, EventKind::kUserAnnotation, 100, 100, -1, -1),
              test_events::At(2, EventKind::kRuntime, 10, 7, -1, 5),
              test_events::At(3, EventKind::kRuntime, 20, 3, -1, 6),
              test_events::At(4, EventKind::kKernel, 110, 10, 7, 5),
              test_events::At(5, EventKind::kMemcpy, 125, 20, 7, 5),
              test_events::At(6, EventKind::kKernel, 155, 5, 7, 5),
              test_events::At(4, EventKind::kKernel, 170, 15, 7, 6)};
  const TraceAnalysis a = AnalyzeTraces({t});
  const GraphLaunchStats& g = a.ranks[0].graphs;
  EXPECT_EQ(g.launches, 1);
  EXPECT_EQ(g.gpu_events, 3);
  EXPECT_NEAR(g.gpu_time_s, 35e-6, 1e-15);
  EXPECT_NEAR(g.gpu_time_share, 35.0 / 50.0, 1e-12);
  EXPECT_NEAR(g.cpu_launch_s, 7e-6, 1e-15);
  EXPECT_NEAR(g.mean_replay_span_s, 50e-6, 1e-15);
  ASSERT_EQ(g.steps.size(), 1u);
  EXPECT_EQ(g.steps[0].step, 1);
  EXPECT_EQ(g.steps[0].gpu_events, 3);
  EXPECT_NEAR(g.steps[0].gpu_time_s, 35e-6, 1e-15);
  EXPECT_TRUE(IsGraphLaunch("cudaGraphLaunch_v10000"));
  EXPECT_TRUE(IsGraphLaunch("cuGraphLaunch"));
  EXPECT_FALSE(IsGraphLaunch("cudaLaunchKernel"));
}

// hta/negative_queue_length_values_check (70 cudaGraphLaunch calls, their GPU events carrying
// their ids): in the steps HTA keeps (550-553; 554 dropped), 56 launches of 276 events, 84,282 us
// of 318,168 us of GPU event time, 4,296 us launching, 5,700.57 us per replay, 14 per step:
// figures from a separate reading of the raw JSON with HTA's last-step filter.
TEST(GraphLaunches, SharedTraceWithCudaGraphs) {
  PARATUNE_SHARED_OR_SKIP(path, "traces/hta/negative_queue_length_values_check/rank0.json.gz");
  RankTrace t = ReadKinetoTrace(path);
  t.rank = 0;
  const TraceAnalysis a = AnalyzeTraces({t});
  const GraphLaunchStats& g = a.ranks[0].graphs;
  EXPECT_EQ(g.launches, 56);
  EXPECT_EQ(g.gpu_events, 276);
  EXPECT_NEAR(g.gpu_time_s, 84'282e-6, 1e-9);
  EXPECT_NEAR(g.gpu_time_share, 84'282.0 / 318'168.0, 1e-9);
  EXPECT_NEAR(g.cpu_launch_s, 4'296e-6, 1e-9);
  EXPECT_NEAR(g.mean_replay_span_s, 5'700.571428571428e-6, 1e-9);
  ASSERT_EQ(g.steps.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(g.steps[i].step, 550 + static_cast<int64_t>(i));
    EXPECT_EQ(g.steps[i].launches, 14);
  }
}

}  // namespace
}  // namespace paratune
