#include "analysis/queue_length.h"

#include <gtest/gtest.h>

#include "analysis/test_events.h"
#include "analysis/trace_analysis.h"
#include "trace/kineto_reader.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// By hand, stream 7: launches at 0, 1, 2 us, their kernels start at 5, 6, 7: the series is
// 1, 2, 3, 2, 1, 0 (mean 1.5, sample std 1.0488, quartiles 1, 1.5, 2), held 1 us each except
// 3 for 3 us: time-weighted mean (1 + 2 + 3*3 + 2 + 1) / 7. A graph replay's kernel on stream 9
// has no launch call and no queue.
TEST(QueueLength, HtasSeriesAndItsSummary) {
  RankTrace t;
  t.rank = 0;
  t.names = {"ProfilerStep#1", "ProfilerStep#2", "cudaLaunchKernel", "k", "cudaGraphLaunch"};
  t.events = {test_events::At(0, EventKind::kUserAnnotation, 0, 50, -1, -1),
              test_events::At(1, EventKind::kUserAnnotation, 50, 10, -1, -1),
              test_events::At(2, EventKind::kRuntime, 0, 1, -1, 1),
              test_events::At(2, EventKind::kRuntime, 1, 1, -1, 2),
              test_events::At(2, EventKind::kRuntime, 2, 1, -1, 3),
              test_events::At(3, EventKind::kKernel, 5, 1, 7, 1),
              test_events::At(3, EventKind::kKernel, 6, 1, 7, 2),
              test_events::At(3, EventKind::kKernel, 7, 1, 7, 3),
              test_events::At(4, EventKind::kRuntime, 3, 1, -1, 4),
              test_events::At(3, EventKind::kKernel, 8, 1, 9, 4)};
  const TraceAnalysis a = AnalyzeTraces({t});
  const auto& q = a.ranks[0].queue_length;
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].stream, 7);
  EXPECT_EQ(q[0].count, 6);
  EXPECT_DOUBLE_EQ(q[0].mean, 1.5);
  EXPECT_NEAR(q[0].stddev, 1.0488088481701516, 1e-12);
  EXPECT_DOUBLE_EQ(q[0].min, 0);
  EXPECT_DOUBLE_EQ(q[0].p25, 1);
  EXPECT_DOUBLE_EQ(q[0].p50, 1.5);
  EXPECT_DOUBLE_EQ(q[0].p75, 2);
  EXPECT_DOUBLE_EQ(q[0].max, 3);
  EXPECT_NEAR(q[0].time_weighted_mean, 15.0 / 7.0, 1e-12);
  EXPECT_TRUE(IsHtaLaunchCall("cudaMemcpyAsync"));
  EXPECT_FALSE(IsHtaLaunchCall("cudaGraphLaunch"));
}

// HTA's own test on hta/negative_queue_length_values_check (tests/test_trace_analysis.py
// test_generate_trace_with_counters at f4d0062): no negative queue length, 6 streams; and the
// series of streams 7 and 27 from a separate reading of the raw JSON (HTA's last-step filter, the
// launch calls above): 9,680 points, mean 656.69, up to 946 launches waiting; 592, up to 17.
TEST(QueueLength, SharedTraceWithGraphsHasNoNegativeQueue) {
  PARATUNE_SHARED_OR_SKIP(path, "traces/hta/negative_queue_length_values_check/rank0.json.gz");
  RankTrace t = ReadKinetoTrace(path);
  t.rank = 0;
  const TraceAnalysis a = AnalyzeTraces({t});
  const auto& q = a.ranks[0].queue_length;
  EXPECT_EQ(q.size(), 6u);
  for (const QueueLengthRow& r : q) EXPECT_GE(r.min, 0) << "stream " << r.stream;
  ASSERT_EQ(q[0].stream, 7);
  EXPECT_EQ(q[0].count, 9'680);
  EXPECT_NEAR(q[0].mean, 656.6898760330579, 1e-9);
  EXPECT_EQ(q[0].max, 946);
  ASSERT_EQ(q[2].stream, 27);
  EXPECT_EQ(q[2].count, 592);
  EXPECT_NEAR(q[2].mean, 3.5777027027027026, 1e-12);
  EXPECT_EQ(q[2].max, 17);
}

}  // namespace
}  // namespace paratune
