#include "analysis/collectives.h"

#include <gtest/gtest.h>

namespace paratune {
namespace {

TEST(CollectiveStats, BusBandwidthFactors) {
  // nccl-tests doc/PERFORMANCE.md: 2(n-1)/n, (n-1)/n, 1.
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllReduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllReduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kReduceScatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllToAll, 2), 0.5);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kReduce, 8), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kSendRecv, 2), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kOther, 8), 0.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllReduce, 0), 0.0);
}

TEST(CollectiveStats, DtypeBytes) {
  EXPECT_EQ(DtypeBytes("Float"), 4);
  EXPECT_EQ(DtypeBytes("float32"), 4);
  EXPECT_EQ(DtypeBytes("Double"), 8);
  EXPECT_EQ(DtypeBytes("Half"), 2);
  EXPECT_EQ(DtypeBytes("BFloat16"), 2);
  EXPECT_EQ(DtypeBytes("bfloat16"), 2);
  EXPECT_EQ(DtypeBytes("Float16"), 2);
  EXPECT_EQ(DtypeBytes("Float8_e4m3fn"), 1);
  EXPECT_EQ(DtypeBytes("Float8_e5m2"), 1);
  EXPECT_EQ(DtypeBytes("Byte"), 1);
  EXPECT_EQ(DtypeBytes("Char"), 1);
  EXPECT_EQ(DtypeBytes("Bool"), 1);
  EXPECT_EQ(DtypeBytes("Int8"), 1);
  EXPECT_EQ(DtypeBytes("UInt8"), 1);
  EXPECT_EQ(DtypeBytes("Int"), 4);
  EXPECT_EQ(DtypeBytes("INT32"), 4);
  EXPECT_EQ(DtypeBytes("Long"), 8);
  EXPECT_EQ(DtypeBytes("Int64"), 8);
  EXPECT_EQ(DtypeBytes("ComplexFloat"), 8);
  EXPECT_EQ(DtypeBytes(""), 0);
  EXPECT_EQ(DtypeBytes("Float3"), 0);
  EXPECT_EQ(DtypeBytes("Quaternion"), 0);
}

TraceEvent Ev(uint32_t name, EventKind kind, int64_t ts_ns, int64_t dur_ns, int64_t stream, int32_t coll = -1) {
  TraceEvent e;
  e.name = name;
  e.kind = kind;
  e.ts_ns = ts_ns;
  e.dur_ns = dur_ns;
  e.stream = stream;
  e.collective = coll;
  return e;
}

// Times in ms after an epoch-based base (as Kineto writes absolute ns), to check precision too.
//   all-reduce [0,1] and [10,11], 262144 Float elements each, group 8: S = 1 MiB each.
//   gemms [10.25,10.75] (stream 7) and [10.5,11.5] (stream 8): compute union [10.25,11.5].
//   all-gather [20,24], Out msg nelems 1048576 BFloat16, group 8: S = 2 MiB.
//   triton kernel [23,25]; a gemm [20,24] on stream -1 and a memcpy [20,24] are not compute.
//   reduce-scatter [30,32] without args: counted, not sized.
//   a gpu_user_annotation "ProfilerStep#3" over everything and a cpu_op "nccl:all_reduce" are
//   not kernels; a third all-reduce is not among the analysed events.
TEST(CollectiveStats, HandBuiltRankTrace) {
  const int64_t b = 1'700'000'000'000'000'000;  // ns since the epoch
  const int64_t ms = 1'000'000;
  RankTrace t;
  t.names = {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
             "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclWorkElem)",
             "ncclKernel_ReduceScatter_RING_LL_Sum_bf16(ncclWorkElem)",
             "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64",
             "triton_poi_fused_add_0",
             "Memcpy DtoD (Device -> Device)",
             "nccl:all_reduce",
             "ProfilerStep#3"};
  t.collectives = {{"allreduce", 262144, 262144, 8, "Float", "0"},
                   {"_allgather_base", 131072, 1048576, 8, "BFloat16", "0"}};
  t.events = {
      Ev(0, EventKind::kKernel, b, 1 * ms, 20, 0),                 // 0: all-reduce
      Ev(0, EventKind::kKernel, b + 10 * ms, 1 * ms, 20, 0),       // 1: all-reduce
      Ev(3, EventKind::kKernel, b + 10 * ms + ms / 4, ms / 2, 7),  // 2: gemm [10.25,10.75]
      Ev(3, EventKind::kKernel, b + 10 * ms + ms / 2, 1 * ms, 8),  // 3: gemm [10.5,11.5]
      Ev(1, EventKind::kKernel, b + 20 * ms, 4 * ms, 21, 1),       // 4: all-gather
      Ev(4, EventKind::kKernel, b + 23 * ms, 2 * ms, 7),           // 5: triton [23,25]
      Ev(3, EventKind::kKernel, b + 20 * ms, 4 * ms, -1),          // 6: no stream
      Ev(5, EventKind::kMemcpy, b + 20 * ms, 4 * ms, 7),           // 7: memcpy
      Ev(2, EventKind::kKernel, b + 30 * ms, 2 * ms, 20),          // 8: reduce-scatter, no args
      Ev(7, EventKind::kGpuUserAnnotation, b, 40 * ms, 7),         // 9
      Ev(6, EventKind::kCpuOp, b, 1 * ms, -1, 0),                  // 10
      Ev(0, EventKind::kKernel, b + 50 * ms, 3 * ms, 20, 0),       // 11: not analysed
  };
  const std::vector<uint32_t> events = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const std::vector<CollectiveStats> s = ComputeCollectiveStats(t, events);
  ASSERT_EQ(s.size(), 3u);

  // Sorted by total: all-gather 4 ms, then all-reduce and reduce-scatter 2 ms each (by kind).
  const CollectiveStats& ag = s[0];
  EXPECT_EQ(ag.kind, Collective::kAllGather);
  EXPECT_EQ(ag.count, 1);
  EXPECT_NEAR(ag.total_s, 4e-3, 1e-15);
  EXPECT_NEAR(ag.exposed_s, 3e-3, 1e-12);  // [20,23]: the triton kernel hides [23,24]
  EXPECT_EQ(ag.sized_count, 1);
  EXPECT_DOUBLE_EQ(ag.bytes, 2097152);  // 1048576 x 2 bytes
  EXPECT_NEAR(ag.sized_time_s, 4e-3, 1e-15);
  EXPECT_NEAR(ag.algbw_bytes_per_s, 524288000, 1e-3);  // 2 MiB / 4 ms
  EXPECT_NEAR(ag.busbw_bytes_per_s, 458752000, 1e-3);  // x 7/8

  const CollectiveStats& ar = s[1];
  EXPECT_EQ(ar.kind, Collective::kAllReduce);
  EXPECT_EQ(ar.count, 2);
  EXPECT_NEAR(ar.total_s, 2e-3, 1e-15);
  EXPECT_NEAR(ar.exposed_s, 1.25e-3, 1e-12);  // 2 ms minus [10.25,11]
  EXPECT_EQ(ar.sized_count, 2);
  EXPECT_DOUBLE_EQ(ar.bytes, 2097152);  // 2 x 262144 x 4 bytes
  EXPECT_NEAR(ar.sized_time_s, 2e-3, 1e-15);
  EXPECT_NEAR(ar.algbw_bytes_per_s, 1048576000, 1e-3);  // 1 MiB / 1 ms
  EXPECT_NEAR(ar.busbw_bytes_per_s, 1835008000, 1e-3);  // x 1.75

  const CollectiveStats& rs = s[2];
  EXPECT_EQ(rs.kind, Collective::kReduceScatter);
  EXPECT_EQ(rs.count, 1);
  EXPECT_NEAR(rs.total_s, 2e-3, 1e-15);
  EXPECT_NEAR(rs.exposed_s, 2e-3, 1e-12);
  EXPECT_EQ(rs.sized_count, 0);
  EXPECT_EQ(rs.bytes, 0);
  EXPECT_EQ(rs.algbw_bytes_per_s, 0);
  EXPECT_EQ(rs.busbw_bytes_per_s, 0);
  EXPECT_TRUE(rs.groups.empty());
}

// Reduce-scatter S is the total input; an all-to-all through SendRecv kernels is an all-to-all;
// an unknown dtype leaves a kernel unsized; busbw sums each kernel's own factor.
TEST(CollectiveStats, SizesPerKindAndMixedGroups) {
  const int64_t ms = 1'000'000;
  RankTrace t;
  t.names = {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
             "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)"};
  t.collectives = {{"_reduce_scatter_base", 1048576, 131072, 8, "BFloat16", "1"},
                   {"reduce_scatter_tensor", 1048576, 262144, 4, "BFloat16", "2"},
                   {"all_to_all", 524288, 524288, 4, "Float", "3"},
                   {"all_to_all", 524288, 524288, 4, "Quaternion", "3"}};
  t.events = {Ev(0, EventKind::kKernel, 0, 2 * ms, 20, 0), Ev(0, EventKind::kKernel, 5 * ms, 2 * ms, 20, 1),
              Ev(1, EventKind::kKernel, 10 * ms, 1 * ms, 20, 2), Ev(1, EventKind::kKernel, 12 * ms, 1 * ms, 20, 3)};
  const std::vector<CollectiveStats> s = ComputeCollectiveStats(t, {0, 1, 2, 3});
  ASSERT_EQ(s.size(), 2u);
  const CollectiveStats& rs = s[0];
  EXPECT_EQ(rs.kind, Collective::kReduceScatter);
  EXPECT_EQ(rs.sized_count, 2);
  EXPECT_DOUBLE_EQ(rs.bytes, 4194304);  // 2 x 1048576 x 2 bytes: the inputs
  EXPECT_NEAR(rs.algbw_bytes_per_s, 4194304 / 4e-3, 1e-3);
  // (2 MiB x 7/8 + 2 MiB x 3/4) / 4 ms
  EXPECT_NEAR(rs.busbw_bytes_per_s, (2097152 * 0.875 + 2097152 * 0.75) / 4e-3, 1e-3);
  EXPECT_NEAR(rs.exposed_s, 4e-3, 1e-12);
  // The same kernels by group size, ascending: group 4 (2 MiB x 3/4 in 2 ms), group 8 (x 7/8).
  ASSERT_EQ(rs.groups.size(), 2u);
  EXPECT_EQ(rs.groups[0].group_size, 4);
  EXPECT_EQ(rs.groups[0].sized_count, 1);
  EXPECT_DOUBLE_EQ(rs.groups[0].bytes, 2097152);
  EXPECT_DOUBLE_EQ(rs.groups[0].bus_bytes, 2097152 * 0.75);
  EXPECT_NEAR(rs.groups[0].busbw_bytes_per_s, 2097152 * 0.75 / 2e-3, 1e-3);
  EXPECT_EQ(rs.groups[1].group_size, 8);
  EXPECT_NEAR(rs.groups[1].sized_time_s, 2e-3, 1e-15);
  EXPECT_NEAR(rs.groups[1].busbw_bytes_per_s, 2097152 * 0.875 / 2e-3, 1e-3);
  const CollectiveStats& a2a = s[1];
  EXPECT_EQ(a2a.kind, Collective::kAllToAll);
  EXPECT_EQ(a2a.count, 2);
  EXPECT_EQ(a2a.sized_count, 1);
  EXPECT_DOUBLE_EQ(a2a.bytes, 2097152);  // 524288 x 4 bytes
  EXPECT_NEAR(a2a.sized_time_s, 1e-3, 1e-15);
  EXPECT_NEAR(a2a.busbw_bytes_per_s, 2097152 * 0.75 / 1e-3, 1e-3);
  ASSERT_EQ(a2a.groups.size(), 1u);  // the unsized kernel is in no group
  EXPECT_EQ(a2a.groups[0].group_size, 4);
  EXPECT_EQ(a2a.groups[0].sized_count, 1);
}

TEST(CollectiveStats, NoEvents) {
  RankTrace t;
  EXPECT_TRUE(ComputeCollectiveStats(t, {}).empty());
}

// A collective kernel outside NCCL (PyTorch's symmetric-memory all-reduce) is an all-reduce here,
// and not compute that hides another collective: all-gather [0,4] beside it [1,3] is all exposed.
TEST(CollectiveStats, SymmetricMemoryAllReduceIsACollective) {
  const int64_t ms = 1'000'000;
  RankTrace t;
  t.names = {
      "void c10d::symmetric_memory::(anonymous namespace)::two_shot_all_reduce_kernel<c10::BFloat16, 16, 8>"
      "(c10::BFloat16**, unsigned long)",
      "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"};
  t.events = {Ev(0, EventKind::kKernel, 1 * ms, 2 * ms, 7), Ev(1, EventKind::kKernel, 0, 4 * ms, 20)};
  const std::vector<CollectiveStats> s = ComputeCollectiveStats(t, {0, 1});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].kind, Collective::kAllGather);
  EXPECT_NEAR(s[0].exposed_s, 4e-3, 1e-12);
  EXPECT_EQ(s[1].kind, Collective::kAllReduce);
  EXPECT_EQ(s[1].count, 1);
  EXPECT_NEAR(s[1].total_s, 2e-3, 1e-12);
  EXPECT_NEAR(s[1].exposed_s, 2e-3, 1e-12);
}

}  // namespace
}  // namespace paratune
