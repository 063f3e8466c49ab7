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

std::vector<int64_t> QueueLengthSeries(std::vector<QueuePoint>& points) {
  std::stable_sort(points.begin(), points.end(), [](const QueuePoint& a, const QueuePoint& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.delta > b.delta;
  });
  std::vector<int64_t> values(points.size());
  std::map<int64_t, int64_t> queue;
  for (size_t i = 0; i < points.size(); ++i) values[i] = queue[points[i].stream] += points[i].delta;
  return values;
}

namespace {

// The summary of one stream's points and values, in series order.
QueueLengthRow SummarizeQueue(int64_t stream, const std::vector<int64_t>& ts, const std::vector<double>& values) {
  double weighted = 0;
  for (size_t i = 0; i + 1 < values.size(); ++i) weighted += values[i] * static_cast<double>(ts[i + 1] - ts[i]);
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
  const int64_t span = ts.back() - ts.front();
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
  std::vector<QueuePoint> points;
  for (const Row& r : rows.gpu) {
    const TraceEvent& e = rows.Event(r);
    const int64_t at = launch_at.Get(e.correlation);
    if (at == CorrelationMap::kAbsent) continue;
    points.push_back({at, e.stream, r.index, +1});
    points.push_back({r.ts, e.stream, r.index, -1});
  }
  const std::vector<int64_t> values = QueueLengthSeries(points);
  std::map<int64_t, std::pair<std::vector<int64_t>, std::vector<double>>> by_stream;  // times, values
  for (size_t i = 0; i < points.size(); ++i) {
    auto& [ts, v] = by_stream[points[i].stream];
    ts.push_back(points[i].ts);
    v.push_back(static_cast<double>(values[i]));
  }
  std::vector<QueueLengthRow> out;
  for (const auto& [stream, series] : by_stream) out.push_back(SummarizeQueue(stream, series.first, series.second));
  return out;
}

}  // namespace paratune
