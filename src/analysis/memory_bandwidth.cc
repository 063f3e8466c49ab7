#include "analysis/memory_bandwidth.h"

#include <algorithm>
#include <map>

#include "util/stats.h"

namespace paratune {

std::string MemoryKernelKind(std::string_view name) {
  if (name.substr(0, 6) == "Memset") return "Memset";
  if (name.substr(0, 6) != "Memcpy") return "Memcpy Unknown";
  return std::string(name.substr(0, 11));
}

namespace {

struct BandwidthPoint {
  int64_t ts = 0;
  double gbps = 0;  // + at a start, - at an end
};

MemoryBandwidthRow SummarizeBandwidth(const std::string& kind, std::vector<BandwidthPoint> points) {
  std::stable_sort(points.begin(), points.end(), [](const BandwidthPoint& a, const BandwidthPoint& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.gbps < b.gbps;  // ends (negative) first
  });
  std::vector<double> above;
  double sum = 0;
  for (const BandwidthPoint& p : points) {
    sum += p.gbps;
    if (sum > 1e-9) above.push_back(sum);  // above zero beyond the sum's rounding
  }
  MemoryBandwidthRow row;
  row.kind = kind;
  row.count = static_cast<int64_t>(above.size());
  if (above.empty()) return row;
  double total = 0;
  for (double v : above) total += v;
  row.mean_gbps = total / static_cast<double>(above.size());
  row.stddev_gbps = SampleStdDev(above);
  std::sort(above.begin(), above.end());
  row.min_gbps = above.front();
  row.p25_gbps = SortedQuantile(above, 0.25);
  row.p50_gbps = SortedQuantile(above, 0.5);
  row.p75_gbps = SortedQuantile(above, 0.75);
  row.max_gbps = above.back();
  return row;
}

}  // namespace

std::vector<MemoryBandwidthRow> MemoryBandwidthSummary(const RankRows& rows) {
  const RankTrace& t = *rows.trace;
  // A copy's GB/s: memory_bandwidth_gbps is in event order, so a binary search finds it (0 where
  // absent, HTA's default); no per-event array on the hot path.
  const auto& bw = t.memory_bandwidth_gbps;
  auto gbps_of = [&](uint32_t index) {
    const auto it = std::lower_bound(bw.begin(), bw.end(), index,
                                     [](const std::pair<uint32_t, double>& e, uint32_t i) { return e.first < i; });
    return it != bw.end() && it->first == index ? it->second : 0.0;
  };
  std::map<std::string, std::vector<BandwidthPoint>> by_kind;
  for (size_t i = 0; i < rows.gpu.size(); ++i) {
    if (rows.gpu_types[i] != HtaKernelType::kMemory) continue;
    const Row& r = rows.gpu[i];
    const double gbps = gbps_of(r.index);
    auto& points = by_kind[MemoryKernelKind(t.Name(rows.Event(r)))];
    points.push_back({r.ts, gbps});
    points.push_back({r.end > r.ts ? r.end : r.ts + 1000, -gbps});
  }
  std::vector<MemoryBandwidthRow> out;
  for (auto& [kind, points] : by_kind) {
    MemoryBandwidthRow row = SummarizeBandwidth(kind, std::move(points));
    if (row.count > 0) out.push_back(std::move(row));
  }
  return out;
}

}  // namespace paratune
