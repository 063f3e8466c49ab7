#include "analysis/launches.h"

#include <algorithm>

namespace paratune {

LaunchStats LaunchStatistics(const RankRows& rr, double runtime_cutoff_s, double delay_cutoff_s) {
  // Correlation ids are unique per launch in real traces; pairing with the last CPU row of an id
  // keeps the join linear instead of quadratic when a file repeats one.
  const std::vector<Row>& kept = rr.kept;
  CorrelationMap launch_corr(rr.corr_range), cpu_launch(rr.corr_range);  // cpu_launch: index into kept
  for (const Row& r : kept) {
    const TraceEvent& e = rr.Event(r);
    if (rr.names.launch[e.name] && e.correlation >= 0) launch_corr.Set(e.correlation, 1);
  }
  for (size_t i = 0; i < kept.size(); ++i) {
    const TraceEvent& e = rr.Event(kept[i]);
    if (e.stream == -1 && launch_corr.Get(e.correlation) != CorrelationMap::kAbsent)
      cpu_launch.Set(e.correlation, static_cast<int64_t>(i));
  }
  LaunchStats ls;
  const double rc = runtime_cutoff_s, dc = delay_cutoff_s;
  for (const Row& g : kept) {
    const TraceEvent& e = rr.Event(g);
    if (e.stream == -1) continue;
    const int64_t ci = cpu_launch.Get(e.correlation);
    if (ci == CorrelationMap::kAbsent) continue;
    const Row& c = kept[static_cast<size_t>(ci)];
    const double cpu = static_cast<double>(c.end - c.ts) * kNsToS, gpu_d = static_cast<double>(g.end - g.ts) * kNsToS;
    const double delay = std::max(0.0, static_cast<double>(g.ts - c.end) * kNsToS);
    ++ls.launches;
    ls.cpu_duration_s += cpu;
    ls.gpu_duration_s += gpu_d;
    ls.launch_delay_s += delay;
    ls.max_launch_delay_s = std::max(ls.max_launch_delay_s, delay);
    // HTA's plot thresholds compare µs values; a tiny epsilon keeps "<= 50 µs" exact in ns.
    if (cpu <= rc + 1e-12 && gpu_d < cpu) ++ls.short_kernels;
    if (cpu > rc + 1e-12) ++ls.runtime_outliers;
    if (delay > dc + 1e-12) ++ls.launch_delay_outliers;
  }
  if (ls.launches) ls.mean_launch_delay_s = ls.launch_delay_s / static_cast<double>(ls.launches);
  return ls;
}

}  // namespace paratune
