#include "analysis/cross_rank.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "analysis/trace_analysis.h"
#include "util/stats.h"

namespace paratune {

CrossRankView CrossRank(const std::vector<RankAnalysis>& ranks) {
  CrossRankView out;
  if (ranks.size() < 2) return out;
  auto spread = [&](const char* metric, auto value) {
    std::vector<std::pair<double, int>> v;
    for (const RankAnalysis& r : ranks) {
      const double x = value(r);
      if (std::isfinite(x)) v.emplace_back(x, r.rank);
    }
    if (v.empty()) return;
    std::sort(v.begin(), v.end());
    std::vector<double> xs;
    for (const auto& p : v) xs.push_back(p.first);
    out.spreads.push_back(
        {metric, v.front().first, SortedQuantile(xs, 0.5), v.back().first, v.front().second, v.back().second});
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  spread("compute_pct", [](const RankAnalysis& r) { return r.temporal.compute_pct(); });
  spread("non_compute_pct", [](const RankAnalysis& r) { return r.temporal.non_compute_pct(); });
  spread("idle_pct", [](const RankAnalysis& r) { return r.temporal.idle_pct(); });
  spread("comm_overlap_pct", [](const RankAnalysis& r) { return r.comm_overlap_pct; });
  spread("step_time_s", [nan](const RankAnalysis& r) { return r.step_time.count ? r.step_time.mean : nan; });
  spread("dataloader_share", [nan](const RankAnalysis& r) { return r.step_time.count ? r.dataloader_share : nan; });
  std::map<int64_t, std::vector<std::pair<double, int>>> by_step;
  for (const RankAnalysis& r : ranks)
    for (const IterationStats& it : r.iterations) by_step[it.step].emplace_back(it.cpu_step_s, r.rank);
  for (auto& [step, v] : by_step) {
    if (v.size() < 2) continue;
    std::sort(v.begin(), v.end());
    std::vector<double> xs;
    for (const auto& p : v) xs.push_back(p.first);
    // Within 1 µs the ranks are level (synchronous steps end together): no slowest rank.
    const int slowest = v.back().first - v.front().first > 1e-6 ? v.back().second : -1;
    out.iterations.push_back(
        {step, static_cast<int>(v.size()), v.front().first, SortedQuantile(xs, 0.5), v.back().first, slowest});
  }
  return out;
}

}  // namespace paratune
