#include "trace/nccl_tests.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "util/test_util.h"

namespace paratune {
namespace {

// The layout of nccl-tests 2.13-2.18 (src/common.cu), two ranks of one H100 node; the numbers
// of the rows are made up but consistent (algbw = size / time, busbw = algbw x 2(n-1)/n = algbw).
const char* kCurrent =
    R"(# nThread 1 nGpus 1 minBytes 1048576 maxBytes 536870912 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  41021 on    node-07 device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid  41022 on    node-07 device  1 [0x2a] NVIDIA H100 80GB HBM3
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       
node-07:41021:41021 [0] NCCL INFO comm 0x55d0 rank 0 nranks 2 - Init COMPLETE
   268435456      67108864     float     sum      -1   1000.0  268.44  268.44      0    999.0  268.71  268.71      0
   536870912     134217728     float     sum      -1   2000.0  268.44  268.44    N/A   1998.0  268.70  268.70  1e+06
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 268.57 
#
)";

TEST(NcclTests, ReadsTheCurrentLayout) {
  ASSERT_TRUE(LooksLikeNcclTests(kCurrent));
  const NcclTestsRun r = ParseNcclTests(kCurrent, "ar.log");
  EXPECT_EQ(r.collective, Collective::kOther);  // no program name, busbw == algbw at n = 2
  EXPECT_EQ(r.ranks, 2);
  EXPECT_EQ(r.nodes, 1);
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[1], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r.hosts[0], "node-07");
  EXPECT_EQ(r.header_line, 8);
  ASSERT_EQ(r.rows.size(), 2u);
  const NcclTestRow& a = r.rows[0];
  EXPECT_EQ(a.line, 11);
  EXPECT_DOUBLE_EQ(a.size_bytes, 268435456.0);
  EXPECT_EQ(a.count, 67108864);
  EXPECT_EQ(a.type, "float");
  EXPECT_EQ(a.redop, "sum");
  EXPECT_EQ(a.root, -1);
  EXPECT_DOUBLE_EQ(a.time_s, 1000.0e-6);
  EXPECT_DOUBLE_EQ(a.algbw_bytes_per_s, 268.44e9);
  EXPECT_DOUBLE_EQ(a.busbw_bytes_per_s, 268.44e9);
  EXPECT_EQ(a.wrong, 0);
  EXPECT_DOUBLE_EQ(a.inplace_time_s, 999.0e-6);
  EXPECT_DOUBLE_EQ(a.inplace_busbw_bytes_per_s, 268.71e9);
  EXPECT_EQ(r.rows[1].wrong, -1);               // N/A
  EXPECT_EQ(r.rows[1].inplace_wrong, 1000000);  // "%6g" of a large count
  EXPECT_DOUBLE_EQ(r.printed_avg_busbw_bytes_per_s, 268.57e9);
  EXPECT_EQ(r.avg_busbw_line, 14);
}

TEST(NcclTests, ReadsVersion219WithProgramNameBusIdAndTimestamps) {
  const std::string text = R"(# nccl-tests version 2.19.6 nccl-headers=22807 nccl-library=22807
# Collective test starting: all_gather_perf_mpi
# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 1073741824 step: 2(factor) warmup iters: 1 iters: 5 agg iters: 1 validation: 1 graph: 0 unalign: 0
#
# Using devices
#  Rank  0 Group  0 Pid   1001 on     gpu-a1 device  0 [0000:18:00] NVIDIA A100-SXM4-80GB
#  Rank  1 Group  0 Pid   1002 on     gpu-a1 device  1 [0000:2a:00] NVIDIA A100-SXM4-80GB
#  Rank  2 Group  0 Pid   2001 on     gpu-a2 device  0 [0000:18:00] NVIDIA A100-SXM4-80GB
#  Rank  3 Group  0 Pid   2002 on     gpu-a2 device  1 [0000:2a:00] NVIDIA A100-SXM4-80GB
#
#                                                      out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong           timestamp
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)            %Y-%m-%d %H:%M:%S
  1073741824      67108864     float    none      -1    20000   53.69   40.27       0    19000   56.51   42.38       0 2026-03-01 10:00:00
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 41.33 
#
# Collective test concluded: all_gather_perf_mpi
)";
  const NcclTestsRun r = ParseNcclTests(text, "ag.log");
  EXPECT_EQ(r.program, "all_gather_perf");
  EXPECT_EQ(r.collective, Collective::kAllGather);
  EXPECT_EQ(r.ranks, 4);
  EXPECT_EQ(r.nodes, 2);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(r.rows[0].busbw_bytes_per_s, 40.27e9);
  EXPECT_DOUBLE_EQ(r.rows[0].inplace_busbw_bytes_per_s, 42.38e9);
  EXPECT_EQ(r.rows[0].redop, "none");
}

TEST(NcclTests, ReadsPre213LayoutWithoutRootAndWithErrorColumn) {
  // nccl-tests before 2.13: "#   Rank  0 Pid ... [0x07]" (no Group), all_reduce without root,
  // the "error" column ("%5.0le").
  const std::string text =
      R"(# nThread 1 nGpus 8 minBytes 4 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 
#
# Using devices
#   Rank  0 Pid   3100 on    dgx01 device  0 [0x07] Tesla V100-SXM2-32GB
#   Rank  1 Pid   3100 on    dgx01 device  1 [0x0a] Tesla V100-SXM2-32GB
#
#                                                     out-of-place                       in-place          
#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error
#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       
  8589934592    2147483648   float     sum    95000   90.42  158.23  4e-07    94000   91.38  159.92  0e+00
)";
  const NcclTestsRun r = ParseNcclTests(text, "old.log");
  // busbw / algbw = 1.75 = 2(8-1)/8: only all-reduce has a factor above 1.
  EXPECT_EQ(r.collective, Collective::kAllReduce);
  EXPECT_EQ(r.ranks, 2);  // the Rank lines win over nGpus
  EXPECT_EQ(r.rows[0].root, -1);
  EXPECT_DOUBLE_EQ(r.rows[0].error, 4e-7);
  EXPECT_DOUBLE_EQ(r.rows[0].inplace_error, 0);
  EXPECT_EQ(r.rows[0].wrong, -1);
  EXPECT_DOUBLE_EQ(r.rows[0].time_s, 0.095);
}

TEST(NcclTests, RootedColumnsNameBroadcastAndReduce) {
  const std::string bcast =
      "#  size  count  type  root  time  algbw  busbw  error  time  algbw  busbw  error\n"
      "  1048576  262144  float  0  20.0  52.43  52.43  0e+00  20.0  52.43  52.43  0e+00\n";
  EXPECT_EQ(ParseNcclTests(bcast, "b.log").collective, Collective::kBroadcast);
  const std::string reduce =
      "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n"
      "  1048576  262144  float  sum  0  20.0  52.43  52.43  0  20.0  52.43  52.43  0\n";
  EXPECT_EQ(ParseNcclTests(reduce, "r.log").collective, Collective::kReduce);
}

TEST(NcclTests, ProgramNameFromACommandLine) {
  const std::string text =
      "mpirun -np 16 -H a:8,b:8 /opt/nccl-tests/build/reduce_scatter_perf -b 1G -e 1G -g 1\n"
      "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n"
      "  1073741824  16777216  float  sum  -1  30000  35.79  33.55  0  30000  35.79  33.55  0\n";
  const NcclTestsRun r = ParseNcclTests(text, "rs.log");
  EXPECT_EQ(r.program, "reduce_scatter_perf");
  EXPECT_EQ(r.collective, Collective::kReduceScatter);
  EXPECT_EQ(r.ranks, 1);  // -g 1 and no Rank lines: one process's GPUs
}

TEST(NcclTests, ReadsTheSharedMassagedExcerpt) {
  PARATUNE_SHARED_OR_SKIP(path, "traces/nccl_tests/all_reduce_perf_1x8xA100_ml-engineering_massaged.txt");
  const NcclTestsRun r = ReadNcclTests(path);
  EXPECT_EQ(r.program, "all_reduce_perf");
  EXPECT_EQ(r.collective, Collective::kAllReduce);
  EXPECT_EQ(r.ranks, 8);  // -g 8 on the command line
  EXPECT_EQ(r.nodes, 0);  // no Rank lines
  EXPECT_TRUE(r.devices.empty());
  ASSERT_EQ(r.rows.size(), 20u);
  EXPECT_EQ(r.header_line, 3);
  EXPECT_DOUBLE_EQ(r.rows[0].size_bytes, 32768.0);
  EXPECT_DOUBLE_EQ(r.rows[0].time_s, 43.83e-6);
  EXPECT_DOUBLE_EQ(r.rows[0].busbw_bytes_per_s, 1.31e9);
  EXPECT_EQ(r.rows[0].count, -1);
  EXPECT_TRUE(std::isnan(r.rows[0].inplace_busbw_bytes_per_s));
  EXPECT_DOUBLE_EQ(r.rows.back().size_bytes, 17179869184.0);
  EXPECT_DOUBLE_EQ(r.rows.back().busbw_bytes_per_s, 234.89e9);
  // algbw x 2(8-1)/8 = busbw on every row, as nccl-tests computes it: 134.22 x 1.75 = 234.885.
  EXPECT_NEAR(r.rows.back().algbw_bytes_per_s * BusBandwidthFactor(r.collective, r.ranks), 234.89e9, 0.01e9);
  // Rows of at least 256 MiB: 268,435,456 .. 17,179,869,184 B (7 rows); their median busbw is the
  // fourth, 2,147,483,648 B: 231.41 GB/s.
  EXPECT_DOUBLE_EQ(LargeMessageBusBandwidth(r), 231.41e9);
  EXPECT_TRUE(std::isnan(r.printed_avg_busbw_bytes_per_s));
}

TEST(NcclTests, BusBandwidthFactorsOfPerformanceMd) {
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kReduceScatter, 16), 15.0 / 16);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllToAll, 2), 0.5);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllReduce, 0), 0.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kOther, 8), 0.0);
  EXPECT_STREQ(NcclTestCollectiveName(Collective::kAllToAll), "alltoall");
}

TEST(NcclTests, LargeMessageBandwidthFallsBackToTheLargestQuarter) {
  std::string text = "#  size  time  algbw  busbw\n";
  // 8 rows of 1..128 KiB: none reaches 256 MiB, so the largest quarter (2 rows) counts.
  for (int i = 0; i < 8; ++i)
    text +=
        std::to_string(1024 << i) + " 10.0 " + std::to_string(i + 1) + ".0 " + std::to_string(10 * (i + 1)) + ".0\n";
  const NcclTestsRun r = ParseNcclTests(text, "small.log");
  EXPECT_DOUBLE_EQ(LargeMessageBusBandwidth(r), 75e9);             // median of 70 and 80 GB/s
  EXPECT_DOUBLE_EQ(LargeMessageBusBandwidth(r, 32 * 1024), 70e9);  // 32, 64, 128 KiB: 60, 70, 80 GB/s
}

TEST(NcclTests, BrokenInputIsOneLineNamingFileLineAndField) {
  const std::string head =
      "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n";
  const std::string row = "  1048576  262144  float  sum  -1  20.0  52.43  91.75  0  20.0  52.43  91.75  0\n";
  EXPECT_CONTAINS(InputErrorOf([] { ParseNcclTests("", "e.log"); }), "e.log: empty file");
  EXPECT_CONTAINS(InputErrorOf([] { ParseNcclTests("hello\nworld\n", "x.log"); }), "x.log: no nccl-tests result table");
  EXPECT_CONTAINS(InputErrorOf([&] { ParseNcclTests(head, "h.log"); }), "h.log:1: the result table has no rows");
  // nThread x nGpus beyond an int (70,912 x 70,912, found by nccl_tests_fuzz): an error, not an overflow.
  EXPECT_EQ(InputErrorOf([&] { ParseNcclTests("# nThread 70912 nGpus 70912 minBytes 8\n" + head + row, "r.log"); }),
            "r.log: nThread x nGpus = 5028511744 ranks, more than 1048576");
  // Truncated row.
  EXPECT_CONTAINS(
      InputErrorOf([&] { ParseNcclTests(head + row + "  2097152  524288  float  sum  -1  30.0  69.9", "t.log"); }),
      "t.log:3: row has 7 fields, the header at line 1 has 13 columns");
  // Non-number.
  EXPECT_CONTAINS(InputErrorOf([&] {
                    ParseNcclTests(
                        head + "  1048576  262144  float  sum  -1  20.0  52.43  fast  0  20.0  52.43  91.75  0\n",
                        "n.log");
                  }),
                  "n.log:2: field 'busbw': 'fast' is not a number");
  EXPECT_CONTAINS(InputErrorOf([&] {
                    ParseNcclTests(
                        head + "  1048576  262144  float  sum  -1  20.0  52.43  91.75  0  -20.0  52.43  91.75  0\n",
                        "g.log");
                  }),
                  "g.log:2: field 'in-place time': '-20.0' is negative");
  // Overflow.
  EXPECT_CONTAINS(
      InputErrorOf([&] {
        ParseNcclTests(
            head + "  99999999999999999999999  262144  float  sum  -1  20.0  52.43  91.75  0  20.0  52.43  91.75  0\n",
            "o.log");
      }),
      "o.log:2: field 'size': '99999999999999999999999' is out of range");
  EXPECT_CONTAINS(InputErrorOf([&] {
                    ParseNcclTests(
                        head + "  1048576  262144  float  sum  -1  1e999  52.43  91.75  0  20.0  52.43  91.75  0\n",
                        "o2.log");
                  }),
                  "o2.log:2: field 'time': '1e999' is out of range");
  EXPECT_CONTAINS(
      InputErrorOf([&] {
        ParseNcclTests(
            head + "  1048576  99999999999999999999  float  sum  -1  20  52.43  91.75  0  20.0  52.43  91.75  0\n",
            "c.log");
      }),
      "c.log:2: field 'count'");
  EXPECT_CONTAINS(InputErrorOf([&] {
                    ParseNcclTests(
                        head + "  1048576  262144  float  sum  -1  20  52.43  91.75  0.5  20.0  52.43  91.75  0\n",
                        "w.log");
                  }),
                  "w.log:2: field '#wrong': '0.5' is not a count");
  // Wrong units, a second table, a broken Rank line, a broken average.
  EXPECT_CONTAINS(
      InputErrorOf([&] { ParseNcclTests(head + "#  (B)  (elements)  (ms)  (GB/s)  (GB/s)\n" + row, "u.log"); }),
      "u.log:2: unit '(ms)'");
  EXPECT_CONTAINS(InputErrorOf([&] { ParseNcclTests(head + row + head + row, "d.log"); }),
                  "d.log:3: a second result table");
  EXPECT_CONTAINS(InputErrorOf([&] {
                    ParseNcclTests("#  Rank  x Group 0 Pid 1 on h device 0 [0x1] GPU\n" + head + row, "rk.log");
                  }),
                  "rk.log:1: Rank line: field 'Rank': 'x' is not a non-negative integer");
  EXPECT_CONTAINS(
      InputErrorOf([&] { ParseNcclTests("#  Rank  0 Group 0 Pid 1 on h device 0\n" + head + row, "rb.log"); }),
      "rb.log:1: Rank line: no '[BUS]'");
  EXPECT_CONTAINS(InputErrorOf([&] { ParseNcclTests(head + row + "# Avg bus bandwidth    : lots\n", "a.log"); }),
                  "a.log:3: field 'Avg bus bandwidth': 'lots' is not a number");
  EXPECT_CONTAINS(InputErrorOf([&] { ParseNcclTests("# nThread 1 nGpus 99999999999\n" + head + row, "nt.log"); }),
                  "nt.log:1: field 'nGpus'");
  // Binary garbage: a header, then bytes; the message stays one printable line.
  std::string garbage = head + "1 \x01\x02\xff\x00\n";
  garbage[garbage.size() - 2] = '\0';
  const std::string msg = InputErrorOf([&] { ParseNcclTests(garbage, "bin.log"); });
  EXPECT_CONTAINS(msg, "bin.log:2: row has");
  for (char c : msg) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "unprintable byte in the message";
}

TEST(NcclTests, ReadsManyRowsFast) {
  std::string text = "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n";
  for (int i = 0; i < 20000; ++i)
    text += "  1048576  262144  float  sum  -1  20.0  52.43  91.75  0  20.0  52.43  91.75  0\n";
  const auto t0 = std::chrono::steady_clock::now();
  const NcclTestsRun r = ParseNcclTests(text, "big.log");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.rows.size(), 20000u);
  EXPECT_LT(s, 1.0);
}

}  // namespace
}  // namespace paratune
