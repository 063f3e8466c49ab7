#include "timeline/breakdown.h"

#include <algorithm>
#include <limits>

namespace paratune {
namespace {

// Sorts by start and merges overlapping or touching intervals in place.
void MergeUnion(std::vector<Interval>& v) {
  auto by_start = [](const Interval& a, const Interval& b) { return a.start_s < b.start_s; };
  if (!std::is_sorted(v.begin(), v.end(), by_start)) std::sort(v.begin(), v.end(), by_start);
  size_t out = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].end_s <= v[i].start_s) continue;
    if (out > 0 && v[i].start_s <= v[out - 1].end_s)
      v[out - 1].end_s = std::max(v[out - 1].end_s, v[i].end_s);
    else
      v[out++] = v[i];
  }
  v.resize(out);
}

double Length(const std::vector<Interval>& v) {
  double s = 0;
  for (const Interval& i : v) s += i.end_s - i.start_s;
  return s;
}

// Length of the intersection of two merged (disjoint, sorted) interval lists.
double Overlap(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  double s = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double lo = std::max(a[i].start_s, b[j].start_s), hi = std::min(a[i].end_s, b[j].end_s);
    if (hi > lo) s += hi - lo;
    (a[i].end_s < b[j].end_s) ? ++i : ++j;
  }
  return s;
}

}  // namespace

double GpuTimeBreakdown::overlap_pct() const {
  return comm_s > 0 ? 100.0 * (comm_s - non_compute_s) / comm_s : std::numeric_limits<double>::quiet_NaN();
}

GpuTimeBreakdown BreakdownIntervals(std::vector<Interval>& compute, std::vector<Interval>& other, double start_s,
                                    double end_s) {
  MergeUnion(compute);
  MergeUnion(other);
  GpuTimeBreakdown r;
  r.window_s = end_s - start_s;
  r.compute_s = Length(compute);
  r.comm_s = Length(other);
  r.non_compute_s = r.comm_s - Overlap(compute, other);
  r.idle_s = r.window_s - r.compute_s - r.non_compute_s;
  return r;
}

TimelineBreakdown ComputeBreakdown(const Timeline& t) {
  TimelineBreakdown b;
  if (t.events.empty()) {
    b.ranks.resize(static_cast<size_t>(std::max(0, t.ranks)));
    return b;
  }
  int ranks = t.ranks;
  b.start_s = std::numeric_limits<double>::infinity();
  b.end_s = -std::numeric_limits<double>::infinity();
  for (const TimelineEvent& e : t.events) {
    b.start_s = std::min(b.start_s, e.start_s);
    b.end_s = std::max(b.end_s, e.end_s());
    ranks = std::max(ranks, e.rank + 1);
  }
  b.step_time_s = b.end_s - b.start_s;
  std::vector<std::vector<Interval>> compute(static_cast<size_t>(ranks)), comm(static_cast<size_t>(ranks));
  for (const TimelineEvent& e : t.events) {
    if (e.rank < 0) continue;
    (IsComputePhase(e.phase) ? compute : comm)[static_cast<size_t>(e.rank)].push_back({e.start_s, e.end_s()});
  }
  b.ranks.reserve(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r)
    b.ranks.push_back(
        BreakdownIntervals(compute[static_cast<size_t>(r)], comm[static_cast<size_t>(r)], b.start_s, b.end_s));
  return b;
}

}  // namespace paratune
