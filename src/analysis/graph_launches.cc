#include "analysis/graph_launches.h"

#include <algorithm>
#include <map>

namespace paratune {

bool IsGraphLaunch(std::string_view name) {
  return name.starts_with("cudaGraphLaunch") || name.starts_with("cuGraphLaunch");
}

GraphLaunchStats GraphLaunches(const RankRows& rows, const std::vector<int64_t>& gpu_row_steps) {
  GraphLaunchStats out;
  const RankTrace& t = *rows.trace;
  // correlation -> the launch's index; the last CPU-side launch row of an id, as HTA pairs them.
  CorrelationMap launch_of(rows.corr_range);
  std::vector<const Row*> launch_rows;
  for (const Row& r : rows.kept) {
    const TraceEvent& e = rows.Event(r);
    if (rows.GpuSide(e) || e.correlation < 0 || !IsGraphLaunch(t.Name(e))) continue;
    launch_of.Set(e.correlation, static_cast<int64_t>(launch_rows.size()));
    launch_rows.push_back(&r);
  }
  if (launch_rows.empty()) return out;
  struct Replay {
    int64_t events = 0, first = 0, last = 0, step = -1;
    double gpu_s = 0;
  };
  std::vector<Replay> replays(launch_rows.size());
  double all_gpu_s = 0;
  for (size_t i = 0; i < rows.gpu.size(); ++i) {
    const Row& r = rows.gpu[i];
    const double dur_s = static_cast<double>(r.end - r.ts) * kNsToS;
    all_gpu_s += dur_s;
    const int64_t l = launch_of.Get(rows.Event(r).correlation);
    if (l == CorrelationMap::kAbsent) continue;
    Replay& p = replays[static_cast<size_t>(l)];
    p.first = p.events ? std::min(p.first, r.ts) : r.ts;
    p.last = p.events ? std::max(p.last, r.end) : r.end;
    p.step = i < gpu_row_steps.size() ? gpu_row_steps[i] : -1;
    ++p.events;
    p.gpu_s += dur_s;
    out.gpu_time_s += dur_s;
  }
  std::map<int64_t, GraphStepStats> by_step;
  double span_s = 0;
  for (size_t l = 0; l < replays.size(); ++l) {
    const Replay& p = replays[l];
    if (p.events == 0) continue;
    ++out.launches;
    out.gpu_events += p.events;
    out.cpu_launch_s += static_cast<double>(launch_rows[l]->end - launch_rows[l]->ts) * kNsToS;
    span_s += static_cast<double>(p.last - p.first) * kNsToS;
    GraphStepStats& s = by_step[p.step];
    s.step = p.step;
    ++s.launches;
    s.gpu_events += p.events;
    s.gpu_time_s += p.gpu_s;
  }
  if (out.launches > 0) out.mean_replay_span_s = span_s / static_cast<double>(out.launches);
  out.gpu_time_share = all_gpu_s > 0 ? out.gpu_time_s / all_gpu_s : 0;
  for (auto& [step, s] : by_step) out.steps.push_back(s);
  return out;
}

}  // namespace paratune
