#include "analysis/critical_path_across.h"

#include <algorithm>
#include <limits>
#include <map>

namespace paratune {
namespace {

// The shortest duration of the n-th collective of `key` over the ranks that have the group (at
// least 2, matched up to the smallest count), and the one rank that had it (-1 when tied).
struct Shortest {
  double dur_s = std::numeric_limits<double>::infinity();
  int rank = -1;
};

std::map<RankCollectiveTimes::GroupKey, std::vector<Shortest>> ShortestPerCollective(
    const std::vector<RankPart>& parts) {
  std::map<RankCollectiveTimes::GroupKey, std::vector<const RankPart*>> holders;
  for (const RankPart& p : parts)
    for (const auto& [key, durations] : p.comm.durations_s) holders[key].push_back(&p);
  std::map<RankCollectiveTimes::GroupKey, std::vector<Shortest>> out;
  for (const auto& [key, ps] : holders) {
    if (ps.size() < 2) continue;
    size_t n = std::numeric_limits<size_t>::max();
    for (const RankPart* p : ps) n = std::min(n, p->comm.durations_s.at(key).size());
    std::vector<Shortest>& v = out[key];
    v.resize(n);
    for (const RankPart* p : ps) {
      const std::vector<double>& d = p->comm.durations_s.at(key);
      for (size_t i = 0; i < n; ++i) {
        if (d[i] < v[i].dur_s)
          v[i] = {d[i], p->analysis.rank};
        else if (d[i] == v[i].dur_s)
          v[i].rank = -1;
      }
    }
  }
  return out;
}

}  // namespace

void SetCollectiveWaits(std::vector<RankPart>& parts) {
  if (parts.size() < 2) return;
  const auto shortest = ShortestPerCollective(parts);
  for (RankPart& p : parts) {
    if (!p.analysis.critical_path) continue;
    TraceCriticalPath& cp = *p.analysis.critical_path;
    std::map<int, CriticalWait> by_rank;
    for (const auto& [key, on] : p.comm.on_path) {
      const auto it = shortest.find(key);
      if (it == shortest.end()) continue;
      const std::vector<double>& d = p.comm.durations_s.at(key);
      for (size_t i = 0; i < on.size() && i < it->second.size(); ++i) {
        const Shortest& s = it->second[i];
        if (!on[i] || s.rank < 0 || s.rank == p.analysis.rank) continue;
        const double wait = d[i] - s.dur_s;
        cp.collective_wait_s += wait;
        CriticalWait& w = by_rank[s.rank];
        w.rank = s.rank;
        ++w.collectives;
        w.wait_s += wait;
      }
    }
    for (const auto& [rank, w] : by_rank) cp.waited_for.push_back(w);
    std::stable_sort(cp.waited_for.begin(), cp.waited_for.end(),
                     [](const CriticalWait& a, const CriticalWait& b) { return a.wait_s > b.wait_s; });
  }
}

}  // namespace paratune
