#include "trace/nsys_reader.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "util/test_util.h"

namespace paratune {
namespace {

// Tables with the columns (and column order) of `nsys export --type sqlite` (Nsight Systems
// "SQLite Export Schema Reference"), trimmed of columns the reader does not use where harmless.
constexpr const char* kSchema = R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE TARGET_INFO_GPU (id INTEGER NOT NULL, name TEXT, busLocation TEXT, totalMemory INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER,
  registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
  gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL,
  deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL,
  graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER, int64Value INTEGER,
  doubleValue REAL, uint32Value INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId INTEGER,
  jsonText TEXT);
)sql";

// Serialized GlobalIds as nsys writes them: PID in bits 24..47, TID in the low 24 bits.
constexpr int64_t Gid(int64_t pid, int64_t tid = 0) { return (int64_t{1} << 48) | (pid << 24) | tid; }

// Writes an SQLite file under the test temp dir from `sql` and returns its path.
std::string MakeDb(const std::string& name, const std::string& sql) {
  const std::string path = testing::TempDir() + "nsys_reader_" + name + ".sqlite";
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const std::string script = "PRAGMA synchronous = OFF; BEGIN;" + sql + "COMMIT;";
  const int rc = sqlite3_exec(db, script.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
  return path;
}

// Inserts for one process (pid 100, threads 101 and 102) driving devices 0 and 1: on each device a
// GEMM on stream 7 and an NCCL kernel on stream 13; a memcpy on device 0, a memset on device 1;
// the runtime calls that launched them (correlation ids 10..12 and 20..22); a sync that launched
// nothing; NVTX ProfilerStep#3 / #4 push/pop ranges, a start/end range, a mark, an open range.
std::string TwoDeviceRows() {
  const std::string g = std::to_string(Gid(100)), t1 = std::to_string(Gid(100, 101)),
                    t2 = std::to_string(Gid(100, 102));
  return R"sql(
INSERT INTO StringIds VALUES (1, 'void gemm_kernel<float>(float const*, float*)'), (2, 'gemm_kernel'),
  (3, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)'),
  (4, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'), (5, 'cudaLaunchKernel_v7000'),
  (6, 'cudaMemcpyAsync_v3020'), (7, 'cudaMemsetAsync_v3020'), (8, 'ProfilerStep#4'),
  (9, 'cudaStreamSynchronize_v3020');
INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3', '0000:18:00.0', 85520809984),
  (1, 'NVIDIA H200', '0000:2a:00.0', 150754820096);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (1000, 1500, 0, 1, 7, 10, )sql" +
         g + R"sql(, 1, 2, NULL, 0, 0, 32, 64, 1, 1, 128, 1, 1),
  (1200, 2200, 0, 1, 13, 11, )sql" +
         g + R"sql(, 3, 4, NULL, 0, 0, 96, 8, 1, 1, 512, 1, 1),
  (1100, 1700, 1, 2, 7, 20, )sql" +
         g + R"sql(, 1, 2, NULL, 0, 0, 32, 64, 1, 1, 128, 1, 1),
  (1300, 2300, 1, 2, 13, 21, )sql" +
         g + R"sql(, 3, 4, NULL, 0, 0, 96, 8, 1, 1, 512, 1, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (2500, 2600, 0, 1, 7, 12, )sql" +
         g + R"sql(, 4096, 1, 0, 1, 3, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (2700, 2750, 1, 2, 7, 22, )sql" +
         g + R"sql(, 0, 1024, NULL, 3);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (900, 950, 1, )sql" +
         t1 + R"sql(, 10, 5, 0, NULL),
  (960, 990, 1, )sql" +
         t1 + R"sql(, 11, 5, 0, NULL),
  (2400, 2450, 1, )sql" +
         t1 + R"sql(, 12, 6, 0, NULL),
  (1050, 1090, 1, )sql" +
         t2 + R"sql(, 20, 5, 0, NULL),
  (1095, 1099, 1, )sql" +
         t2 + R"sql(, 21, 5, 0, NULL),
  (2650, 2690, 1, )sql" +
         t2 + R"sql(, 22, 7, 0, NULL),
  (3000, 3100, 1, )sql" +
         t1 + R"sql(, 30, 9, 0, NULL);
INSERT INTO NVTX_EVENTS (start, end, eventType, text, textId, globalTid) VALUES
  (800, 3200, 59, 'ProfilerStep#3', NULL, )sql" +
         t1 + R"sql(),
  (3300, 5000, 59, NULL, 8, )sql" +
         t1 + R"sql(),
  (810, 900, 60, 'data loading', NULL, )sql" +
         t1 + R"sql(),
  (850, NULL, 34, 'a mark', NULL, )sql" +
         t1 + R"sql(),
  (5100, NULL, 59, 'still open at capture end', NULL, )sql" +
         t1 + R"sql();
)sql";
}

std::map<EventKind, int> CountByKind(const RankTrace& t) {
  std::map<EventKind, int> counts;
  for (const TraceEvent& e : t.events) ++counts[e.kind];
  return counts;
}

// The first event of `kind` named `name`; fails the test when there is none.
const TraceEvent& Find(const RankTrace& t, EventKind kind, const std::string& name) {
  for (const TraceEvent& e : t.events)
    if (e.kind == kind && t.Name(e) == name) return e;
  ADD_FAILURE() << "no event " << name << " in " << t.path << " rank " << t.rank;
  static const TraceEvent kNone;
  return kNone;
}

TEST(NsightSqlite, TwoDevicesOneProcess) {
  const std::string path = MakeDb("two_devices", std::string(kSchema) + TwoDeviceRows());
  const std::vector<RankTrace> ranks = ReadNsightSqlite(path);
  ASSERT_EQ(ranks.size(), 2u);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(ranks[r].rank, r);
    EXPECT_EQ(ranks[r].path, path);
    EXPECT_EQ(ranks[r].rank_source, "nsight device");
    EXPECT_EQ(ranks[r].base_time_ns, 0);
    EXPECT_EQ(ranks[r].warnings.Total(), 0);
  }
  EXPECT_EQ(ranks[0].device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(ranks[1].device_name, "NVIDIA H200");

  // The unmatched cudaStreamSynchronize belongs to no single device: dropped. NVTX ranges (not
  // the mark, not the open range) go to both ranks.
  const std::map<EventKind, int> want0 = {
      {EventKind::kKernel, 2}, {EventKind::kMemcpy, 1}, {EventKind::kRuntime, 3}, {EventKind::kUserAnnotation, 3}};
  const std::map<EventKind, int> want1 = {
      {EventKind::kKernel, 2}, {EventKind::kMemset, 1}, {EventKind::kRuntime, 3}, {EventKind::kUserAnnotation, 3}};
  EXPECT_EQ(CountByKind(ranks[0]), want0);
  EXPECT_EQ(CountByKind(ranks[1]), want1);

  const RankTrace& r0 = ranks[0];
  const TraceEvent& gemm = Find(r0, EventKind::kKernel, "void gemm_kernel<float>(float const*, float*)");
  EXPECT_EQ(gemm.ts_ns, 1000);
  EXPECT_EQ(gemm.dur_ns, 500);
  EXPECT_EQ(gemm.stream, 7);
  EXPECT_EQ(gemm.correlation, 10);
  EXPECT_EQ(gemm.collective, -1);
  const TraceEvent& nccl =
      Find(r0, EventKind::kKernel, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  EXPECT_EQ(nccl.ts_ns, 1200);
  EXPECT_EQ(nccl.dur_ns, 1000);
  EXPECT_EQ(nccl.stream, 13);
  EXPECT_EQ(nccl.correlation, 11);
  const TraceEvent& copy = Find(r0, EventKind::kMemcpy, "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(copy.ts_ns, 2500);
  EXPECT_EQ(copy.dur_ns, 100);
  EXPECT_EQ(copy.stream, 7);
  EXPECT_EQ(copy.correlation, 12);

  // Runtime calls: version suffix stripped, on the CPU (stream -1), on the rank of their kernel.
  std::vector<int64_t> correlations0, correlations1;
  for (const TraceEvent& e : r0.events)
    if (e.kind == EventKind::kRuntime) correlations0.push_back(e.correlation);
  for (const TraceEvent& e : ranks[1].events)
    if (e.kind == EventKind::kRuntime) correlations1.push_back(e.correlation);
  EXPECT_EQ(correlations0, (std::vector<int64_t>{10, 11, 12}));
  EXPECT_EQ(correlations1, (std::vector<int64_t>{20, 21, 22}));
  const TraceEvent& launch = Find(r0, EventKind::kRuntime, "cudaLaunchKernel");
  EXPECT_EQ(launch.ts_ns, 900);
  EXPECT_EQ(launch.dur_ns, 50);
  EXPECT_EQ(launch.stream, -1);
  EXPECT_EQ(launch.tid, 101);
  EXPECT_EQ(Find(r0, EventKind::kRuntime, "cudaMemcpyAsync").correlation, 12);
  const TraceEvent& memset_call = Find(ranks[1], EventKind::kRuntime, "cudaMemsetAsync");
  EXPECT_EQ(memset_call.correlation, 22);
  EXPECT_EQ(memset_call.tid, 102);

  const TraceEvent& memset = Find(ranks[1], EventKind::kMemset, "Memset (Device)");
  EXPECT_EQ(memset.ts_ns, 2700);
  EXPECT_EQ(memset.dur_ns, 50);
  EXPECT_EQ(memset.correlation, 22);

  for (const RankTrace& t : ranks) {
    const TraceEvent& step3 = Find(t, EventKind::kUserAnnotation, "ProfilerStep#3");
    EXPECT_EQ(step3.ts_ns, 800);
    EXPECT_EQ(step3.dur_ns, 2400);
    EXPECT_EQ(step3.stream, -1);
    EXPECT_EQ(step3.tid, 101);
    const TraceEvent& step4 = Find(t, EventKind::kUserAnnotation, "ProfilerStep#4");  // via textId
    EXPECT_EQ(step4.ts_ns, 3300);
    EXPECT_EQ(step4.dur_ns, 1700);
    EXPECT_EQ(Find(t, EventKind::kUserAnnotation, "data loading").dur_ns, 90);
    // Sorted by start; names interned once per rank.
    for (size_t i = 1; i < t.events.size(); ++i) EXPECT_LE(t.events[i - 1].ts_ns, t.events[i].ts_ns);
    EXPECT_EQ(t.events.front().ts_ns, 800);
    for (size_t i = 0; i < t.names.size(); ++i)
      for (size_t j = i + 1; j < t.names.size(); ++j) EXPECT_NE(t.names[i], t.names[j]);
  }
  EXPECT_EQ(std::count(r0.names.begin(), r0.names.end(), "cudaLaunchKernel"), 1);
}

// Without globalTid in the runtime table, calls match their GPU work by correlationId alone.
TEST(NsightSqlite, RuntimeWithoutGlobalTid) {
  const std::string path = MakeDb("no_global_tid", std::string(kSchema) + TwoDeviceRows() + R"sql(
CREATE TABLE r AS SELECT start, end, eventClass, correlationId, nameId, returnValue FROM CUPTI_ACTIVITY_KIND_RUNTIME;
DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME;
ALTER TABLE r RENAME TO CUPTI_ACTIVITY_KIND_RUNTIME;
)sql");
  const std::vector<RankTrace> ranks = ReadNsightSqlite(path);
  ASSERT_EQ(ranks.size(), 2u);
  for (int r = 0; r < 2; ++r) {
    std::vector<int64_t> correlations;
    for (const TraceEvent& e : ranks[r].events)
      if (e.kind == EventKind::kRuntime) {
        correlations.push_back(e.correlation);
        EXPECT_EQ(e.tid, 0);
      }
    EXPECT_EQ(correlations, (std::vector<int64_t>{10 * (r + 1), 10 * (r + 1) + 1, 10 * (r + 1) + 2}));
  }
}

// One process per GPU (torchrun): both use correlation id 1, each has its own ProfilerStep.
TEST(NsightSqlite, OneProcessPerDeviceMatchesWithinTheProcess) {
  const std::string a = std::to_string(Gid(100)), b = std::to_string(Gid(200)), a1 = std::to_string(Gid(100, 101)),
                    b1 = std::to_string(Gid(200, 201)), other = std::to_string(Gid(300, 301));
  const std::string path = MakeDb("per_process", std::string(kSchema) + R"sql(
INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'cudaLaunchKernel_v7000'), (3, 'cudaStreamSynchronize_v3020'),
  (4, 'ProfilerStep#0');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId,
  globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ) VALUES
  (2000, 3000, 0, 1, 7, 1, )sql" + a + R"sql(, 1, 1, 32, 1, 1, 1, 1, 1, 1),
  (2500, 3700, 1, 1, 7, 1, )sql" + b + R"sql(, 1, 1, 32, 1, 1, 1, 1, 1, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (1000, 1100, 1, )sql" + a1 + R"sql(, 1, 2, 0, NULL),
  (1200, 1400, 1, )sql" + b1 + R"sql(, 1, 2, 0, NULL),
  (3000, 3800, 1, )sql" + b1 + R"sql(, 2, 3, 0, NULL),
  (3000, 3900, 1, )sql" + other + R"sql(, 7, 3, 0, NULL);
INSERT INTO NVTX_EVENTS (start, end, eventType, text, textId, globalTid) VALUES
  (500, 4000, 59, NULL, 4, )sql" + a1 + R"sql(),
  (600, 4100, 59, NULL, 4, )sql" + b1 + R"sql(),
  (700, 800, 59, 'loader', NULL, )sql" + other + R"sql();
)sql");
  const std::vector<RankTrace> ranks = ReadNsightSqlite(path);
  ASSERT_EQ(ranks.size(), 2u);
  const TraceEvent& launch0 = Find(ranks[0], EventKind::kRuntime, "cudaLaunchKernel");
  EXPECT_EQ(launch0.ts_ns, 1000);
  EXPECT_EQ(launch0.tid, 101);
  const TraceEvent& launch1 = Find(ranks[1], EventKind::kRuntime, "cudaLaunchKernel");
  EXPECT_EQ(launch1.ts_ns, 1200);
  EXPECT_EQ(launch1.dur_ns, 200);
  // A sync that launched nothing goes to the one device of its process.
  EXPECT_EQ(Find(ranks[1], EventKind::kRuntime, "cudaStreamSynchronize").dur_ns, 800);
  EXPECT_EQ(CountByKind(ranks[0])[EventKind::kRuntime], 1);
  EXPECT_EQ(CountByKind(ranks[1])[EventKind::kRuntime], 2);
  // Each process's step on its own rank; a range of a process without GPU work on both.
  EXPECT_EQ(Find(ranks[0], EventKind::kUserAnnotation, "ProfilerStep#0").ts_ns, 500);
  EXPECT_EQ(Find(ranks[1], EventKind::kUserAnnotation, "ProfilerStep#0").ts_ns, 600);
  EXPECT_EQ(CountByKind(ranks[0])[EventKind::kUserAnnotation], 2);
  EXPECT_EQ(CountByKind(ranks[1])[EventKind::kUserAnnotation], 2);
  EXPECT_EQ(Find(ranks[1], EventKind::kUserAnnotation, "loader").dur_ns, 100);
  EXPECT_EQ(ranks[0].device_name, "");  // no TARGET_INFO_GPU rows
}

// A single GPU with a sparse device id, an older layout (shortName only, no globalPid, no memset
// or NVTX tables, no TARGET_INFO_GPU): rank 0, unmatched runtime calls kept.
TEST(NsightSqlite, SingleDeviceOlderLayout) {
  const std::string path = MakeDb("single", R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL,
  contextId INT NOT NULL, streamId INT NOT NULL, correlationId INT NOT NULL, shortName INT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL,
  contextId INT NOT NULL, streamId INT NOT NULL, correlationId INT NOT NULL, bytes INT NOT NULL,
  copyKind INT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT NOT NULL, end INT NOT NULL, globalTid INT NOT NULL,
  correlationId INT NOT NULL, nameId INT NOT NULL, returnValue INT NOT NULL);
INSERT INTO StringIds VALUES (1, 'elementwise_kernel'), (2, 'cudaDeviceSynchronize_v3020'), (3, 'cuLaunchKernel');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 250, 3, 1, 7, 5, 1), (300, 310, 3, 1, 7, 6, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (400, 480, 3, 1, 14, 8, 64, 2), (500, 520, 3, 1, 14, 9, 64, 8),
  (600, 610, 3, 1, 14, 10, 64, 10), (700, 705, 3, 1, 14, 11, 64, 9), (800, 801, 3, 1, 14, 12, 64, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (90, 95, 42, 5, 3, 0), (900, 1000, 42, 77, 2, 0);
)sql");
  const std::vector<RankTrace> ranks = ReadNsightSqlite(path);
  ASSERT_EQ(ranks.size(), 1u);
  const RankTrace& t = ranks[0];
  EXPECT_EQ(t.rank, 0);
  EXPECT_EQ(t.device_name, "");
  EXPECT_EQ(t.warnings.Total(), 0);
  ASSERT_EQ(t.events.size(), 9u);
  EXPECT_EQ(t.Name(t.events[0]), "cuLaunchKernel");  // driver API names have no suffix
  EXPECT_EQ(t.events[0].tid, 42);
  EXPECT_EQ(t.Name(t.events[1]), "elementwise_kernel");
  EXPECT_EQ(t.events[1].dur_ns, 150);
  EXPECT_EQ(t.Name(t.events[3]), "Memcpy DtoH");  // no srcKind/dstKind columns: no "(A -> B)"
  EXPECT_EQ(t.events[3].stream, 14);
  EXPECT_EQ(t.Name(t.events[4]), "Memcpy DtoD");
  EXPECT_EQ(t.Name(t.events[5]), "Memcpy PtoP");
  EXPECT_EQ(t.Name(t.events[6]), "Memcpy HtoH");
  EXPECT_EQ(t.Name(t.events[7]), "Memcpy");  // copyKind 0: unknown
  EXPECT_EQ(t.Name(t.events[8]), "cudaDeviceSynchronize");
  EXPECT_EQ(t.events[8].correlation, 77);
  EXPECT_EQ(t.events[8].kind, EventKind::kRuntime);
}

TEST(NsightSqlite, BadRowsAreSkippedAndCounted) {
  const std::string g = std::to_string(Gid(100)), t1 = std::to_string(Gid(100, 101));
  const std::string path = MakeDb("bad_rows", std::string(kSchema) + R"sql(
INSERT INTO StringIds VALUES (1, 'k'), (2, 'cudaLaunchKernel_v7000');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId,
  globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ) VALUES
  (100, 200, 0, 1, 7, 1, )sql" + g + R"sql(, 1, 1, 32, 1, 1, 1, 1, 1, 1),
  (300, 250, 0, 1, 7, 2, )sql" + g + R"sql(, 1, 1, 32, 1, 1, 1, 1, 1, 1),
  (400, 350, 0, 1, 7, 3, )sql" + g + R"sql(, 1, 1, 32, 1, 1, 1, 1, 1, 1),
  (500, 600, 0, 1, 7, 4, )sql" + g + R"sql(, 99, 98, 32, 1, 1, 1, 1, 1, 1),
  (700, 800, 0, 1, 7, 5, )sql" + g + R"sql(, 999, 1, 32, 1, 1, 1, 1, 1, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (90, 80, 1, )sql" +
                                                  t1 + R"sql(, 1, 2, 0, NULL),
  (95, 99, 1, )sql" + t1 + R"sql(, 5, 2, 0, NULL);
INSERT INTO NVTX_EVENTS (start, end, eventType, text, textId, globalTid) VALUES
  (50, 40, 59, 'backwards', NULL, )sql" + t1 + R"sql(), (60, 70, 59, NULL, NULL, )sql" +
                                                  t1 + R"sql();
)sql");
  // NOT NULL columns cannot hold NULL; a copy of the kernel table without constraints can.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(
                db,
                "BEGIN; CREATE TABLE k2 AS SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL;"
                "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;"
                "ALTER TABLE k2 RENAME TO CUPTI_ACTIVITY_KIND_KERNEL;"
                "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId,"
                " globalPid, demangledName) VALUES (NULL, 900, 0, 7, 6, 0, 1), (950, 990, NULL, 7, 7, 0, 1); COMMIT;",
                nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);

  const std::vector<RankTrace> ranks = ReadNsightSqlite(path);
  ASSERT_EQ(ranks.size(), 1u);
  const RankTrace& t = ranks[0];
  // Kernels: 2 with end < start; one with NULL start, one with NULL deviceId, and one with neither
  // name id in StringIds (demangledName 99, shortName 98) are missing fields; the kernel whose
  // demangledName is unknown falls back to shortName. Runtime: 1 negative. NVTX: 1 negative,
  // 1 without text.
  EXPECT_EQ(t.warnings.negative_duration, 4);
  EXPECT_EQ(t.warnings.missing_field, 4);
  EXPECT_EQ(t.warnings.Total(), 8);
  const std::map<EventKind, int> want = {{EventKind::kKernel, 2}, {EventKind::kRuntime, 1}};
  EXPECT_EQ(CountByKind(t), want);
  EXPECT_EQ(t.events[1].ts_ns, 100);
  EXPECT_EQ(t.events[2].ts_ns, 700);
  EXPECT_EQ(t.Name(t.events[2]), "k");
}

TEST(NsightSqliteErrors, NotSqlite) {
  const std::string path = testing::TempDir() + "nsys_reader_text.sqlite";
  std::ofstream(path) << "this is a text file, long enough to look like a database header........\n";
  const std::string msg = InputErrorOf([&] { ReadNsightSqlite(path); });
  EXPECT_CONTAINS(msg, path + ": not an SQLite database (");
  EXPECT_CONTAINS(msg, "nsys export --type sqlite");
}

TEST(NsightSqliteErrors, MissingFile) {
  const std::string path = testing::TempDir() + "nsys_reader_does_not_exist.sqlite";
  EXPECT_CONTAINS(InputErrorOf([&] { ReadNsightSqlite(path); }), path + ": cannot read: ");
}

TEST(NsightSqliteErrors, NotAnExport) {
  const std::string path = MakeDb("no_tables", "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);");
  EXPECT_CONTAINS(InputErrorOf([&] { ReadNsightSqlite(path); }), path + ": no table StringIds");
  const std::string empty = testing::TempDir() + "nsys_reader_empty.sqlite";
  std::ofstream(empty).flush();  // an empty file is an empty SQLite database
  EXPECT_CONTAINS(InputErrorOf([&] { ReadNsightSqlite(empty); }), empty + ": no table StringIds");
}

TEST(NsightSqliteErrors, NoGpuTables) {
  const std::string path = MakeDb("no_gpu", R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT);
)sql");
  const std::string msg = InputErrorOf([&] { ReadNsightSqlite(path); });
  EXPECT_CONTAINS(msg, path + ": no GPU kernels, memcpy or memset in the export (no table CUPTI_ACTIVITY_KIND_KERNEL");
}

TEST(NsightSqliteErrors, MissingColumn) {
  const std::string path = MakeDb("no_stream", R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,
  correlationId INTEGER, demangledName INTEGER);
INSERT INTO StringIds VALUES (1, 'k');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 1, 1);
)sql");
  EXPECT_EQ(InputErrorOf([&] { ReadNsightSqlite(path); }),
            path + ": table CUPTI_ACTIVITY_KIND_KERNEL lacks column streamId (nsys export of an unsupported version?)");

  const std::string names = MakeDb("no_names", R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  correlationId INTEGER);
)sql");
  EXPECT_CONTAINS(InputErrorOf([&] { ReadNsightSqlite(names); }),
                  names + ": table CUPTI_ACTIVITY_KIND_KERNEL lacks column demangledName");

  // Optional tables are checked too when present.
  const std::string runtime = MakeDb("runtime_no_name", std::string(kSchema) + R"sql(
CREATE TABLE r AS SELECT start, end, globalTid, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME;
DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME;
ALTER TABLE r RENAME TO CUPTI_ACTIVITY_KIND_RUNTIME;
)sql");
  EXPECT_CONTAINS(InputErrorOf([&] { ReadNsightSqlite(runtime); }),
                  runtime + ": table CUPTI_ACTIVITY_KIND_RUNTIME lacks column nameId");

  const std::string strings = MakeDb("strings_no_value", R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
)sql");
  EXPECT_CONTAINS(InputErrorOf([&] { ReadNsightSqlite(strings); }), strings + ": table StringIds lacks column value");
}

TEST(NsightSqliteErrors, NoUsableGpuRows) {
  const std::string path = MakeDb("empty_kernels", kSchema);
  EXPECT_EQ(InputErrorOf([&] { ReadNsightSqlite(path); }),
            path +
                ": no GPU kernels, memcpy or memset in the export (rows: CUPTI_ACTIVITY_KIND_KERNEL 0, "
                "CUPTI_ACTIVITY_KIND_MEMCPY 0, CUPTI_ACTIVITY_KIND_MEMSET 0; none usable)");

  const std::string negative = MakeDb("only_negative", std::string(kSchema) + R"sql(
INSERT INTO StringIds VALUES (1, 'k');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId,
  demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ) VALUES
  (300, 250, 0, 1, 7, 2, 1, 1, 32, 1, 1, 1, 1, 1, 1);
)sql");
  EXPECT_CONTAINS(InputErrorOf([&] { ReadNsightSqlite(negative); }),
                  negative + ": no GPU kernels, memcpy or memset in the export (rows: CUPTI_ACTIVITY_KIND_KERNEL 1,");
}

}  // namespace
}  // namespace paratune

namespace paratune {
namespace {

// Extreme values in every numeric column read: text, a real (1e400 is stored as Inf, 1e30 as a
// real), a negative where none is allowed, a value beyond the supported range. None wraps: the
// row is skipped and counted, and the first is described in one line naming the file, the table,
// the row and the column.
TEST(NsightSqlite, ExtremeNumbersAreLocatedAndNeverWrap) {
  const std::string g = std::to_string(Gid(100)), t1 = std::to_string(Gid(100, 101));
  const std::string good_kernel = "(100, 200, 0, 1, 7, 1, " + g + ", 1, 1, NULL, 0, 0, 32, 1, 1, 1, 1, 1, 1)";
  struct Case {
    const char* table;
    std::string rows;     // VALUES of the table (the good kernel is row 1 of the kernel table)
    const char* message;  // after "FILE: table T, row N: "
  };
  auto kernel = [&](const std::string& start, const std::string& end, const std::string& device,
                    const std::string& stream, const std::string& corr, const std::string& pid,
                    const std::string& name) {
    return good_kernel + ", (" + start + ", " + end + ", " + device + ", 1, " + stream + ", " + corr + ", " + pid +
           ", " + name + ", 1, NULL, 0, 0, 32, 1, 1, 1, 1, 1, 1)";
  };
  const std::vector<Case> cases = {
      {"CUPTI_ACTIVITY_KIND_KERNEL", kernel("'abc'", "400", "0", "7", "2", g, "1"),
       "row 2: column start: 'abc' is not an integer"},
      {"CUPTI_ACTIVITY_KIND_KERNEL", kernel("1e400", "400", "0", "7", "2", g, "1"),
       "row 2: column start: 'Inf' is not an integer"},
      {"CUPTI_ACTIVITY_KIND_KERNEL", kernel("300", "9223372036854775807", "0", "7", "2", g, "1"),
       "row 2: column end: 9223372036854775807 is outside -4000000000000000000..4000000000000000000"},
      {"CUPTI_ACTIVITY_KIND_KERNEL", kernel("300", "250", "0", "7", "2", g, "1"),
       "row 2: end 250 is before start 300 (negative duration)"},
      {"CUPTI_ACTIVITY_KIND_KERNEL", kernel("300", "400", "-1", "7", "2", g, "1"),
       "row 2: column deviceId: -1 is outside 0..9223372036854775807"},
      {"CUPTI_ACTIVITY_KIND_KERNEL", kernel("300", "400", "1e30", "7", "2", g, "1"),
       "row 2: column deviceId: '1.0e+30' is not an integer"},
      {"CUPTI_ACTIVITY_KIND_KERNEL", kernel("300", "400", "0", "-5", "2", g, "1"),
       "row 2: column streamId: -5 is outside 0..9223372036854775807"},
      {"CUPTI_ACTIVITY_KIND_KERNEL", kernel("300", "400", "0", "'seven'", "2", g, "1"),
       "row 2: column streamId: 'seven' is not an integer"},
      {"CUPTI_ACTIVITY_KIND_KERNEL", kernel("300", "400", "0", "7", "-3", g, "1"),
       "row 2: column correlationId: -3 is outside 0..9223372036854775807"},
      {"CUPTI_ACTIVITY_KIND_KERNEL", kernel("300", "400", "0", "7", "2.5", g, "1"),
       "row 2: column correlationId: '2.5' is not an integer"},
      {"CUPTI_ACTIVITY_KIND_KERNEL", kernel("300", "400", "0", "7", "2", "9223372036854775808", "1"),
       "row 2: column globalPid: '9.22337203685478e+18' is not an integer"},
      {"CUPTI_ACTIVITY_KIND_KERNEL", kernel("300", "400", "0", "7", "2", g, "'gemm'"),
       "row 2: column demangledName: 'gemm' is not an integer"},
      {"CUPTI_ACTIVITY_KIND_MEMCPY", "(300, 400, 0, 1, 7, 3, " + g + ", 64, 'HtoD', 0, 1, 3, 0)",
       "row 1: column copyKind: 'HtoD' is not an integer"},
      {"CUPTI_ACTIVITY_KIND_MEMCPY", "(300, 400, 0, 1, 7, 3, " + g + ", 64, 1, 0, 1e400, 3, 0)",
       "row 1: column srcKind: 'Inf' is not an integer"},
      {"CUPTI_ACTIVITY_KIND_MEMSET", "(300, 400, 0, 1, 7, 3, " + g + ", 0, 64, NULL, 'device')",
       "row 1: column memKind: 'device' is not an integer"},
      {"CUPTI_ACTIVITY_KIND_RUNTIME", "(90, 95, 1, " + t1 + ", 'one', 2, 0, NULL)",
       "row 1: column correlationId: 'one' is not an integer"},
      {"CUPTI_ACTIVITY_KIND_RUNTIME", "(90, 95, 1, -9, 1, 2, 0, NULL)",
       "row 1: column globalTid: -9 is outside 0..9223372036854775807"},
      {"CUPTI_ACTIVITY_KIND_RUNTIME", "(90, 95, 1, " + t1 + ", 1, 2.5, 0, NULL)",
       "row 1: column nameId: '2.5' is not an integer"},
      {"CUPTI_ACTIVITY_KIND_RUNTIME", "(-4000000000000000001, 95, 1, " + t1 + ", 1, 2, 0, NULL)",
       "row 1: column start: -4000000000000000001 is outside"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    std::string sql = std::string(kSchema) + "INSERT INTO StringIds VALUES (1, 'k'), (2, 'cudaLaunchKernel_v7000');\n";
    if (std::string(c.table) != "CUPTI_ACTIVITY_KIND_KERNEL")
      sql += "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES " + good_kernel + ";\n";
    sql += std::string("INSERT INTO ") + c.table + " VALUES " + c.rows + ";\n";
    const std::string path = MakeDb("extreme", sql);
    const std::vector<RankTrace> ranks = ReadNsightSqlite(path);
    ASSERT_EQ(ranks.size(), 1u);
    const RankTrace& t = ranks[0];
    ASSERT_EQ(t.events.size(), 1u);
    EXPECT_EQ(t.events[0].ts_ns, 100);
    EXPECT_EQ(t.warnings.BadValues(), 1);
    EXPECT_EQ(t.warnings.Total(), 1);
    EXPECT_EQ(t.warnings.first_bad_value.find('\n'), std::string::npos);
    EXPECT_CONTAINS(t.warnings.first_bad_value, path + ": table " + c.table + ", " + c.message);
  }
}

// NVTX rows and the GPU names: eventType, textId and globalTid, TARGET_INFO_GPU.id.
TEST(NsightSqlite, ExtremeNumbersInNvtxAndGpuInfoAreLocated) {
  const std::string g = std::to_string(Gid(100)), t1 = std::to_string(Gid(100, 101));
  const std::string base = std::string(kSchema) + "INSERT INTO StringIds VALUES (1, 'k');\n" +
                           "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 200, 0, 1, 7, 1, " + g +
                           ", 1, 1, NULL, 0, 0, 32, 1, 1, 1, 1, 1, 1);\n";
  const std::pair<std::string, std::string> cases[] = {
      {"INSERT INTO NVTX_EVENTS (start, end, eventType, text, textId, globalTid) VALUES (10, 20, 'range', 'a', NULL, " +
           t1 + ");",
       "table NVTX_EVENTS, row 1: column eventType: 'range' is not an integer"},
      {"INSERT INTO NVTX_EVENTS (start, end, eventType, text, textId, globalTid) VALUES (10, 20, 59, 'a', NULL, " + t1 +
           "), (10, 20, 59, NULL, 1e30, " + t1 + ");",
       "table NVTX_EVENTS, row 2: column textId: '1.0e+30' is not an integer"},
      {"INSERT INTO NVTX_EVENTS (start, end, eventType, text, textId, globalTid) VALUES (10, 20, 59, 'a', NULL, -1);",
       "table NVTX_EVENTS, row 1: column globalTid: -1 is outside 0..9223372036854775807"},
      {"INSERT INTO TARGET_INFO_GPU VALUES ('zero', 'H100', '', 0);",
       "table TARGET_INFO_GPU, row 1: column id: 'zero' is not an integer"},
  };
  for (const auto& [rows, message] : cases) {
    SCOPED_TRACE(message);
    const std::string path = MakeDb("extreme_nvtx", base + rows + "\n");
    const std::vector<RankTrace> ranks = ReadNsightSqlite(path);
    ASSERT_EQ(ranks.size(), 1u);
    EXPECT_EQ(ranks[0].warnings.bad_number, 1);
    EXPECT_CONTAINS(ranks[0].warnings.first_bad_value, path + ": " + message);
  }
}

}  // namespace
}  // namespace paratune

namespace paratune {
namespace {

// A long export tells the caller every 65,536 rows, so that a long read can be stopped (Ctrl-C in
// Python: trace_set.cc ReadingProgress); an exception from the callback ends the read.
TEST(NsightSqlite, LongReadsCallBackAndCanBeStopped) {
  const std::string many = R"sql(
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL
  WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000)
  SELECT 10000 + x * 10, 10005 + x * 10, 0, 1, 7, NULL, )sql" +
                           std::to_string(Gid(100)) + R"sql(, 1, 2, NULL, 0, 0, 32, 64, 1, 1, 128, 1, 1 FROM c;
)sql";
  const std::string path = MakeDb("long_read", std::string(kSchema) + TwoDeviceRows() + many);
  int calls = 0;
  const std::vector<RankTrace> ranks = ReadNsightSqlite(path, [&] { ++calls; });
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(CountByKind(ranks[0])[EventKind::kKernel], 200002);
  // 200,000 kernel rows and a few dozen others: three calls (every 65,536 rows), not more than four.
  EXPECT_GE(calls, 3);
  EXPECT_LE(calls, 4);
  struct Stop {};
  int before_stop = 0;
  EXPECT_THROW(ReadNsightSqlite(path,
                                [&] {
                                  if (++before_stop == 2) throw Stop{};
                                }),
               Stop);
  EXPECT_EQ(before_stop, 2);
}

}  // namespace
}  // namespace paratune
