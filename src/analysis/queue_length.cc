#include "analysis/queue_length.h"

#include <algorithm>
#include <array>
#include <map>

#include "util/stats.h"

namespace paratune {

bool IsHtaLaunchCall(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kLaunches = {
      "cudaLaunchKernel", "cudaLaunchKernelExC",      "cuLaunchKernel",
      "cuLaunchKernelEx", "cudaMemcpyAsync",          "cudaMemsetAsync",
      "hipLaunchKernel",  "hipExtModuleLaunchKernel", "hipMemsetAsync",
      "hipMemcpyAsync",   "hipMemcpyWithStream",      "runFunction - job_prep_and_submit_for_execution"};
  return std::find(kLaunches.begin(), kLaunches.end(), name) != kLaunches.end();
}

namespace {

struct QueuePoint {
  int64_t ts = 0;
  int delta = 0;  // +1 launch, -1 start
};

QueueLengthRow SummarizeQueue(int64_t stream, std::vector<QueuePoint> points) {
  std::stable_sort(points.begin(), points.end(), [](const QueuePoint& a, const QueuePoint& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.delta > b.delta;
  });
  std::vector<double> values;
  values.reserve(points.size());
  int64_t q = 0;
  double weighted = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    q += points[i].delta;
    values.push_back(static_cast<double>(q));
    if (i + 1 < points.size())
      weighted += static_cast<double>(q) * static_cast<double>(points[i + 1].ts - points[i].ts);
  }
  QueueLengthRow row;
  row.stream = stream;
  row.count = static_cast<int64_t>(values.size());
  double sum = 0;
  for (double v : values) sum += v;
  row.mean = sum / static_cast<double>(values.size());
  row.stddev = SampleStdDev(values);
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  row.min = sorted.front();
  row.p25 = SortedQuantile(sorted, 0.25);
  row.p50 = SortedQuantile(sorted, 0.5);
  row.p75 = SortedQuantile(sorted, 0.75);
  row.max = sorted.back();
  const int64_t span = points.back().ts - points.front().ts;
  row.time_weighted_mean = span > 0 ? weighted / static_cast<double>(span) : row.mean;
  return row;
}

}  // namespace

std::vector<QueueLengthRow> QueueLengthSummary(const RankRows& rows) {
  // The launch calls among the kept CPU-side rows, by correlation.
  CorrelationMap launch_at(rows.corr_range);
  for (const Row& r : rows.kept) {
    const TraceEvent& e = rows.Event(r);
    if (!rows.GpuSide(e) && e.correlation >= 0 && IsHtaLaunchCall(rows.trace->Name(e)))
      launch_at.Set(e.correlation, r.ts);
  }
  std::map<int64_t, std::vector<QueuePoint>> by_stream;
  for (const Row& r : rows.gpu) {
    const TraceEvent& e = rows.Event(r);
    const int64_t at = launch_at.Get(e.correlation);
    if (at == CorrelationMap::kAbsent) continue;
    auto& points = by_stream[e.stream];
    points.push_back({at, +1});
    points.push_back({r.ts, -1});
  }
  std::vector<QueueLengthRow> out;
  for (auto& [stream, points] : by_stream) out.push_back(SummarizeQueue(stream, std::move(points)));
  return out;
}

}  // namespace paratune
