#include "analysis/iterations.h"

#include <algorithm>

#include "analysis/temporal.h"

namespace paratune {

namespace {

struct Step {
  int64_t n, ts, end;
};

// One step's statistics: its CPU span, the data-loader time inside it and the GPU rows it launched.
IterationStats StepStats(const RankRows& rr, const Step& step, const NsIntervals& loader,
                         const std::vector<Row>& rows) {
  IterationStats it;
  it.step = step.n;
  it.cpu_start_ns = step.ts;
  it.cpu_step_s = static_cast<double>(step.end - step.ts) * kNsToS;
  for (const auto& [a, b] : loader) {
    const int64_t lo = std::max(a, step.ts), hi = std::min(b, step.end);
    if (hi > lo) it.dataloader_s += static_cast<double>(hi - lo) * kNsToS;
  }
  const RowsBreakdown b = BreakdownRows(rows, rr.TypesOf(rows), rr.origin);
  it.gpu = b.temporal;
  it.comm_overlap_pct = b.overlap_pct;
  if (!rows.empty()) {
    int64_t first = rows[0].ts;
    for (const Row& r : rows) first = std::min(first, r.ts);
    it.gpu_start_ns = first;
  }
  return it;
}

}  // namespace

IterationBreakdown Iterations(const RankRows& rr) {
  IterationBreakdown out;
  std::vector<Step> steps;
  NsIntervals loader;
  CorrelationMap kept_launch(rr.corr_range);
  for (const Row& r : rr.kept) {
    const TraceEvent& e = rr.Event(r);
    if (rr.GpuSide(e)) continue;
    if (rr.names.step[e.name] >= 0 && e.stream == -1) steps.push_back({rr.names.step[e.name], r.ts, r.end});
    if (rr.names.loader[e.name] && (e.kind == EventKind::kCpuOp || e.kind == EventKind::kUserAnnotation))
      loader.emplace_back(r.ts, r.end);
    if (e.correlation >= 0) kept_launch.Set(e.correlation, r.ts);
  }
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.ts < b.ts; });
  loader = MergeNs(std::move(loader));
  std::vector<std::vector<Row>> step_rows(steps.size());
  out.gpu_row_steps.assign(rr.gpu.size(), -1);
  for (size_t gi = 0; gi < rr.gpu.size(); ++gi) {
    const Row& g = rr.gpu[gi];
    const int64_t lt = kept_launch.Get(rr.Event(g).correlation);
    if (lt == CorrelationMap::kAbsent) continue;
    auto s = std::upper_bound(steps.begin(), steps.end(), lt, [](int64_t x, const Step& st) { return x < st.ts; });
    if (s == steps.begin()) continue;
    --s;
    if (lt < s->end) {
      step_rows[static_cast<size_t>(s - steps.begin())].push_back(g);
      out.gpu_row_steps[gi] = s->n;
    }
  }
  std::vector<double> step_times;
  double loader_total = 0, step_total = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const IterationStats it = StepStats(rr, steps[i], loader, step_rows[i]);
    step_times.push_back(it.cpu_step_s);
    loader_total += it.dataloader_s;
    step_total += it.cpu_step_s;
    out.iterations.push_back(it);
  }
  out.step_time = Describe(step_times);
  out.dataloader_share = step_total > 0 ? loader_total / step_total : 0;
  return out;
}

}  // namespace paratune
