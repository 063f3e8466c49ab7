#include "analysis/temporal.h"

#include <algorithm>

namespace paratune {

GpuTimeBreakdown TemporalBreakdown(const std::vector<Row>& rows, const std::vector<HtaKernelType>& types,
                                   int64_t origin) {
  if (rows.empty()) return {};
  int64_t first = rows[0].ts, last = rows[0].end;
  std::vector<Interval> comp, other;
  comp.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    first = std::min(first, r.ts);
    last = std::max(last, r.end);
    const Interval iv{static_cast<double>(r.ts - origin) * kNsToS, static_cast<double>(r.end - origin) * kNsToS};
    (types[i] == HtaKernelType::kComputation ? comp : other).push_back(iv);
  }
  const double start_s = static_cast<double>(first - origin) * kNsToS,
               end_s = static_cast<double>(last - origin) * kNsToS;
  return BreakdownIntervals(comp, other, start_s, end_s);
}

double CommCompOverlapPct(const std::vector<Row>& rows, const std::vector<HtaKernelType>& types, int64_t origin) {
  std::vector<Interval> comp, comm;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Interval iv{static_cast<double>(rows[i].ts - origin) * kNsToS,
                      static_cast<double>(rows[i].end - origin) * kNsToS};
    if (types[i] == HtaKernelType::kComputation)
      comp.push_back(iv);
    else if (types[i] == HtaKernelType::kCommunication)
      comm.push_back(iv);
  }
  if (comm.empty()) return std::numeric_limits<double>::quiet_NaN();
  return BreakdownIntervals(comp, comm, 0, 0).overlap_pct();
}

RowsBreakdown BreakdownRows(const std::vector<Row>& rows, const std::vector<HtaKernelType>& types, int64_t origin) {
  return {TemporalBreakdown(rows, types, origin), CommCompOverlapPct(rows, types, origin)};
}

}  // namespace paratune
