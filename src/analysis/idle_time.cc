#include "analysis/idle_time.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "util/stats.h"

namespace paratune {

std::vector<IdleRow> IdleTimeBreakdown(const RankRows& rr, double consecutive_kernel_delay_s) {
  std::vector<IdleRow> out;
  std::vector<int64_t> stream_order;
  std::unordered_map<int64_t, std::vector<Row>> by_stream;
  for (const Row& r : rr.kept) {  // kept is in file order: streams in order of first appearance
    const TraceEvent& e = rr.Event(r);
    if (e.stream == -1) continue;
    if (e.kind != EventKind::kKernel && e.kind != EventKind::kMemcpy && e.kind != EventKind::kMemset) continue;
    auto [it, inserted] = by_stream.try_emplace(e.stream);
    if (inserted) stream_order.push_back(e.stream);
    it->second.push_back(r);
  }
  static const char* kCats[3] = {"host_wait", "kernel_wait", "other"};
  const int64_t delay_ns = static_cast<int64_t>(std::llround(consecutive_kernel_delay_s * 1e9));
  for (int64_t s : stream_order) {
    auto& rows = by_stream[s];
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.ts < b.ts; });
    std::vector<double> gaps[3];
    bool present[3] = {false, false, true};
    for (size_t i = 1; i < rows.size(); ++i) {
      const int64_t prev_end = rows[i - 1].end;
      const int64_t gap = rows[i].ts - prev_end;
      const int64_t launched = rr.launch_ts.Get(rr.Event(rows[i]).correlation);
      int c = 2;
      if (launched != CorrelationMap::kAbsent && launched > prev_end)
        c = 0;
      else if (gap < delay_ns)
        c = 1;
      gaps[c].push_back(static_cast<double>(gap) * kNsToS);
      present[c] = true;
    }
    double total = 0;
    for (auto& g : gaps)
      for (double x : g) total += x;
    for (int c = 0; c < 3; ++c) {
      if (!present[c]) continue;
      IdleRow row;
      row.stream = s;
      row.category = kCats[c];
      for (double x : gaps[c]) row.idle_s += x;
      row.ratio = total != 0 ? row.idle_s / total : std::numeric_limits<double>::quiet_NaN();
      row.count = static_cast<int64_t>(gaps[c].size());
      if (!gaps[c].empty()) {
        std::vector<double>& g = gaps[c];
        std::sort(g.begin(), g.end());
        const SummaryStats st = Describe(g);
        row.mean_s = st.mean;
        row.stddev_s = st.stddev;
        row.min_s = st.min;
        row.max_s = st.max;
        row.p25_s = SortedQuantile(g, 0.25);
        row.p50_s = st.median;
        row.p75_s = SortedQuantile(g, 0.75);
      }
      out.push_back(row);
    }
  }
  return out;
}

}  // namespace paratune
