// The analysis of an Nsight Systems export read through the trace set, checked by hand.
#include "analysis/trace_analysis.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>

#include "trace/trace_set.h"

namespace paratune {
namespace {

// An Nsight Systems export goes through the same analysis. One GPU, ns times:
//   ProfilerStep#1 [0, 7800), #2 [7800, 18000), #3 [18000, 22000) as NVTX push/pop ranges;
//   gemm [1000, 5000) and all-reduce [3000, 7000) launched in step 1, gemm [8000, 10000) in
//   step 2, gemm [20000, 21000) in step 3, which HTA's last-step rule drops.
// By hand: kernel time 9000 ns; union of all 8000 (idle 1000); compute 6000; non-compute 2000;
// the all-reduce overlaps compute for 2000 of its 4000 ns (50 %).
TEST(Analysis, NsightExportAnalysedLikeKineto) {
  const std::string path = testing::TempDir() + "/paratune_trace_set_rank.sqlite";
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const char* sql = R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT,
  globalTid INTEGER, textId INTEGER);
INSERT INTO StringIds VALUES (1, 'void gemm_kernel<float>(float const*)'), (2, 'gemm_kernel'),
  (3, 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)'), (4, 'cudaLaunchKernel_v7000');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 5000, 0, 1, 7, 1, 1, 1, 2), (3000, 7000, 0, 1, 20, 2, 1, 3, 3),
  (8000, 10000, 0, 1, 7, 3, 1, 1, 2), (20000, 21000, 0, 1, 7, 4, 1, 1, 2);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (500, 600, 0, 1, 1, 4), (700, 800, 0, 1, 2, 4), (7900, 8000, 0, 1, 3, 4),
  (19000, 19100, 0, 1, 4, 4);
INSERT INTO NVTX_EVENTS VALUES (0, 7800, 59, 'ProfilerStep#1', 1, NULL), (7800, 18000, 59, 'ProfilerStep#2', 1, NULL),
  (18000, 22000, 59, 'ProfilerStep#3', 1, NULL);
)sql";
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);

  const std::vector<RankTrace> ranks = ReadTraceSet({path});
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks[0].rank, 0);
  const TraceAnalysis a = AnalyzeTraces(ranks);
  const RankAnalysis& r = a.ranks[0];
  EXPECT_EQ(r.gpu_events, 3);
  EXPECT_NEAR(r.temporal.window_s, 9000e-9, 1e-15);
  EXPECT_NEAR(r.temporal.idle_s, 1000e-9, 1e-15);
  EXPECT_NEAR(r.temporal.compute_s, 6000e-9, 1e-15);
  EXPECT_NEAR(r.temporal.non_compute_s, 2000e-9, 1e-15);
  EXPECT_NEAR(r.comm_overlap_pct, 50.0, 1e-9);
  EXPECT_EQ(a.profiler_steps, (std::vector<int64_t>{1, 2}));
  ASSERT_EQ(r.iterations.size(), 2u);
  EXPECT_NEAR(r.iterations[0].cpu_step_s, 7800e-9, 1e-15);
  EXPECT_NEAR(r.iterations[0].gpu.window_s, 6000e-9, 1e-15);
  EXPECT_NEAR(r.iterations[0].gpu.compute_pct(), 100.0 * 4000 / 6000, 1e-9);
  EXPECT_NEAR(r.iterations[1].gpu.compute_pct(), 100.0, 1e-9);
  ASSERT_EQ(r.collectives.size(), 1u);
  EXPECT_EQ(r.collectives[0].kind, Collective::kAllReduce);
  EXPECT_NEAR(r.collectives[0].exposed_s, 2000e-9, 1e-15);
  EXPECT_EQ(r.launch.launches, 3);  // cudaLaunchKernel_v7000 is read as cudaLaunchKernel
  std::remove(path.c_str());
}

}  // namespace
}  // namespace paratune
