// NcclTestsRun: the result table of one nccl-tests program (all_reduce_perf, all_gather_perf,
// reduce_scatter_perf, alltoall_perf, ...), out-of-place and in-place columns, with or without
// the `root` column and with `#wrong` or `error` columns, plus the devices it ran on.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "util/collective.h"

namespace paratune {

struct NcclTestRow {
  int line = 0;
  double size_bytes = 0;
  int64_t count = -1;       // elements; -1 when the table lacks it
  std::string type, redop;  // "float", "sum"; empty when absent
  int root = -1;
  double time_s = std::numeric_limits<double>::quiet_NaN();  // out-of-place
  double algbw_bytes_per_s = std::numeric_limits<double>::quiet_NaN();
  double busbw_bytes_per_s = std::numeric_limits<double>::quiet_NaN();
  double inplace_time_s = std::numeric_limits<double>::quiet_NaN();
  double inplace_algbw_bytes_per_s = std::numeric_limits<double>::quiet_NaN();
  double inplace_busbw_bytes_per_s = std::numeric_limits<double>::quiet_NaN();
  int64_t wrong = -1;  // -1: "N/A" or absent
  int64_t inplace_wrong = -1;
  // Older nccl-tests (before 2.13) print the largest relative error ("error", "4e-07") instead of
  // "#wrong"; NaN when absent or "N/A".
  double error = std::numeric_limits<double>::quiet_NaN();
  double inplace_error = std::numeric_limits<double>::quiet_NaN();
};

struct NcclTestsRun {
  std::string path;
  Collective collective = Collective::kOther;  // from the command line or the header
  int ranks = 0;                               // from the "#  Rank  N ... device ..." lines; 0: unknown
  int nodes = 0;                               // distinct hosts in those lines; 0: unknown
  std::vector<std::string> devices;            // device names per rank as printed
  std::vector<std::string> hosts;              // host name per rank as printed (parallel to devices)
  std::string program;                         // "all_reduce_perf" when named in the file; else empty
  int header_line = 0;                         // 1-based line of the column header
  int avg_busbw_line = 0;                      // line of "# Avg bus bandwidth"; 0: absent
  std::vector<NcclTestRow> rows;               // ascending size as in the file
  double printed_avg_busbw_bytes_per_s = std::numeric_limits<double>::quiet_NaN();  // "# Avg bus bandwidth"
};

bool LooksLikeNcclTests(std::string_view head);
NcclTestsRun ParseNcclTests(std::string_view text, const std::string& where);
NcclTestsRun ReadNcclTests(const std::string& path);

// The busbw factor of nccl-tests doc/PERFORMANCE.md for `n` ranks.
const char* NcclTestCollectiveName(
    Collective c);  // nccl-tests' spelling: "all_reduce", "alltoall", "sendrecv", "unknown" ...

// Median busbw over the large-message rows (size >= `min_bytes`, default 256 MiB, or the largest
// quarter of rows when none reach it): what the fabric sustains, not the printed average.
double LargeMessageBusBandwidth(const NcclTestsRun& run, double min_bytes = 256.0 * 1024 * 1024);

}  // namespace paratune
