// libFuzzer target: the nccl-tests reader must throw InputError or succeed on any bytes; a
// parsed run keeps the reader's promises.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "trace/nccl_tests.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paratune;
  NcclTestsRun r;
  try {
    r = ParseNcclTests(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.log");
  } catch (const InputError&) {
    return 0;
  }
  if (r.rows.empty() || r.header_line < 1 || r.ranks < 0 || r.nodes < 0 || r.nodes > r.ranks) std::abort();
  if (r.devices.size() != r.hosts.size()) std::abort();
  if (!r.devices.empty() && r.ranks != static_cast<int>(r.devices.size())) std::abort();
  for (const auto& row : r.rows) {
    if (row.line <= r.header_line || !(row.size_bytes >= 0)) std::abort();
    for (double v : {row.time_s, row.algbw_bytes_per_s, row.busbw_bytes_per_s, row.inplace_time_s,
                     row.inplace_algbw_bytes_per_s, row.inplace_busbw_bytes_per_s, row.error, row.inplace_error})
      if (!std::isnan(v) && !(v >= 0 && std::isfinite(v))) std::abort();
  }
  const double b = LargeMessageBusBandwidth(r);
  if (!std::isnan(b) && !(b >= 0)) std::abort();
  if (BusBandwidthFactor(r.collective, r.ranks) < 0) std::abort();
  return 0;
}
