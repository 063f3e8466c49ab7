#include "analysis/memory_bandwidth.h"

#include <gtest/gtest.h>

#include "analysis/test_events.h"
#include "analysis/trace_analysis.h"
#include "trace/kineto_reader.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// By hand: two HtoD copies overlapping on two streams, 10 and 20 GB/s: [0, 10) and [5, 15) us,
// so the sum is 10, 30, 20, 0: points above zero 10, 30, 20 (mean 20, sample std 10). A memset of
// 0 us lasts 1 us; a DtoD copy without a bandwidth arg adds 0 and has no row.
TEST(MemoryBandwidth, HtasSeriesPerKind) {
  RankTrace t;
  t.rank = 0;
  t.names = {"ProfilerStep#1",  "ProfilerStep#2",
             "cudaMemcpyAsync", "Memcpy HtoD (Pinned -> Device)",
             "Memset (Device)", "Memcpy DtoD (Device -> Device)"};
  t.events = {test_events::At(0, EventKind::kUserAnnotation, 0, 100, -1, -1),
              test_events::At(1, EventKind::kUserAnnotation, 100, 10, -1, -1),
              test_events::At(2, EventKind::kRuntime, 0, 1, -1, 1),
              test_events::At(2, EventKind::kRuntime, 1, 1, -1, 2),
              test_events::At(2, EventKind::kRuntime, 2, 1, -1, 3),
              test_events::At(2, EventKind::kRuntime, 3, 1, -1, 4),
              test_events::At(3, EventKind::kMemcpy, 10, 10, 7, 1),
              test_events::At(3, EventKind::kMemcpy, 15, 10, 8, 2),
              test_events::At(4, EventKind::kMemset, 30, 0, 7, 3),
              test_events::At(5, EventKind::kMemcpy, 40, 5, 7, 4)};
  t.memory_bandwidth_gbps = {{6, 10.0}, {7, 20.0}, {8, 0.5}};
  const TraceAnalysis a = AnalyzeTraces({t});
  const auto& m = a.ranks[0].memory_bandwidth;
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].kind, "Memcpy HtoD");
  EXPECT_EQ(m[0].count, 3);
  EXPECT_DOUBLE_EQ(m[0].mean_gbps, 20);
  EXPECT_DOUBLE_EQ(m[0].stddev_gbps, 10);
  EXPECT_DOUBLE_EQ(m[0].max_gbps, 30);
  EXPECT_DOUBLE_EQ(m[0].p25_gbps, 15);
  EXPECT_EQ(m[1].kind, "Memset");
  EXPECT_EQ(m[1].count, 1);
  EXPECT_DOUBLE_EQ(m[1].max_gbps, 0.5);
  EXPECT_EQ(MemoryKernelKind("Memcpy DtoH (Device -> Pinned)"), "Memcpy DtoH");
  EXPECT_EQ(MemoryKernelKind("dma_copy"), "Memcpy Unknown");
}

// hta/negative_queue_length_values_check: HTA's own test counts 4 kinds (tests/test_trace_analysis.py
// at f4d0062); the figures from a separate reading of the raw JSON (HTA's last-step filter).
TEST(MemoryBandwidth, SharedTraceHasHtasFourKinds) {
  PARATUNE_SHARED_OR_SKIP(path, "traces/hta/negative_queue_length_values_check/rank0.json.gz");
  RankTrace t = ReadKinetoTrace(path);
  t.rank = 0;
  const TraceAnalysis a = AnalyzeTraces({t});
  const auto& m = a.ranks[0].memory_bandwidth;
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].kind, "Memcpy DtoD");
  EXPECT_EQ(m[0].count, 912);
  EXPECT_NEAR(m[0].mean_gbps, 146.86881940769916, 1e-9);
  EXPECT_NEAR(m[0].max_gbps, 865.1617161716172, 1e-9);
  EXPECT_NEAR(m[0].p50_gbps, 3.683453237410072, 1e-9);
  EXPECT_EQ(m[1].kind, "Memcpy DtoH");
  EXPECT_EQ(m[1].count, 24);
  EXPECT_EQ(m[2].kind, "Memcpy HtoD");
  EXPECT_EQ(m[2].count, 64);
  EXPECT_NEAR(m[2].max_gbps, 21.16550144648023, 1e-9);
  EXPECT_EQ(m[3].kind, "Memset");
  EXPECT_EQ(m[3].count, 200);
  EXPECT_NEAR(m[3].mean_gbps, 0.41021232266029234, 1e-9);
}

}  // namespace
}  // namespace paratune
