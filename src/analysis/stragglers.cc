#include "analysis/stragglers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <utility>

#include "analysis/kernel_class.h"
#include "util/stats.h"

namespace paratune {
namespace {

// Thresholds of the method in stragglers.h.
constexpr double kLastArrivalShare = 0.5;
constexpr int64_t kMinMatched = 4;
constexpr double kCausedWaitShare = 0.05;
constexpr double kRobustZ = 3.5;  // Iglewicz & Hoaglin 1993
constexpr size_t kMinRanksForZ = 3;

using GroupKey = RankCollectiveTimes::GroupKey;
using RankComm = RankCollectiveTimes;

// The waits of one step: who caused how much, in all, and over how many collectives.
struct StepWait {
  std::map<size_t, double> caused_s;  // input index -> wait caused in this step
  double total_s = 0;
  int64_t collectives = 0;
};

// Matches the n-th collective of the group key across its member ranks: each rank's matched
// collectives and waits, the last arrivals and the wait they caused, per step too.
void MatchCollectiveGroup(const GroupKey& key, const std::vector<size_t>& ranks, const std::vector<RankComm>& comm,
                          StragglerReport* report, std::map<int64_t, StepWait>* step_waits) {
  std::vector<const std::vector<double>*> group;  // this group's durations on each member
  size_t matched = std::numeric_limits<size_t>::max();
  for (size_t r : ranks) {
    group.push_back(&comm[r].durations_s.at(key));
    matched = std::min(matched, group.back()->size());
  }
  std::vector<double> d(ranks.size());
  for (size_t k = 0; k < matched; ++k) {
    for (size_t j = 0; j < ranks.size(); ++j) d[j] = (*group[j])[k];
    const double min_s = *std::min_element(d.begin(), d.end());
    const double median_s = Median(d);
    ++report->collectives_matched;
    // The step of this collective: as the first member rank that knows it saw it.
    int64_t step = -1;
    for (size_t j = 0; j < ranks.size() && step < 0; ++j) step = comm[ranks[j]].steps.at(key)[k];
    if (step >= 0) ++(*step_waits)[step].collectives;
    for (size_t j = 0; j < ranks.size(); ++j) {
      StragglerRank& s = report->ranks[ranks[j]];
      ++s.collectives_matched;
      s.waited_s += d[j] - min_s;
    }
    // The shortest kernel's rank arrived last, unless several ranks share the minimum.
    if (std::count(d.begin(), d.end(), min_s) == 1) {
      const size_t j = static_cast<size_t>(std::find(d.begin(), d.end(), min_s) - d.begin());
      StragglerRank& s = report->ranks[ranks[j]];
      ++s.last_arrivals;
      s.caused_wait_s += median_s - min_s;
      if (step >= 0) {
        (*step_waits)[step].caused_s[ranks[j]] += median_s - min_s;
        (*step_waits)[step].total_s += median_s - min_s;
      }
    }
  }
}

// Step times: robust z-score of each rank's mean among the ranks that have step times; returns
// those means.
std::vector<double> SetStepTimeZ(const std::vector<StragglerInput>& inputs, StragglerReport* report) {
  const size_t n = inputs.size();
  std::vector<double> means;
  for (size_t r = 0; r < n; ++r) {
    const std::vector<double>& st = inputs[r].step_times_s;
    if (st.empty()) continue;
    report->ranks[r].mean_step_time_s = std::accumulate(st.begin(), st.end(), 0.0) / static_cast<double>(st.size());
    means.push_back(report->ranks[r].mean_step_time_s);
  }
  const RobustCenter step_center = MedianAndMad(means);
  for (size_t r = 0; r < n; ++r)
    if (!inputs[r].step_times_s.empty())
      report->ranks[r].step_time_robust_z = RobustZ(report->ranks[r].mean_step_time_s, step_center);
  return means;
}

// Flags the ranks that arrive last at most matched collectives and cause enough wait, or whose
// mean step time stands out, with the reason.
void FlagStragglers(const std::vector<RankComm>& comm, const std::vector<double>& means, StragglerReport* report) {
  const double median_step_s = MedianAndMad(means).median;
  std::vector<double> totals;
  for (const RankComm& rc : comm) totals.push_back(rc.total_s);
  const double median_comm_s = Median(totals);
  for (StragglerRank& s : report->ranks) {
    std::vector<std::string> why;
    if (s.collectives_matched >= kMinMatched &&
        static_cast<double>(s.last_arrivals) >= kLastArrivalShare * static_cast<double>(s.collectives_matched) &&
        s.caused_wait_s >= kCausedWaitShare * median_comm_s)
      why.push_back(
          fmt::format("last to arrive at {} of {} matched collectives; "
                      "the other ranks waited {:.1f} ms for it",
                      s.last_arrivals, s.collectives_matched, s.caused_wait_s * 1e3));
    if (means.size() >= kMinRanksForZ && s.step_time_robust_z >= kRobustZ)
      why.push_back(fmt::format("mean step time {:.1f} ms against the ranks' median {:.1f} ms (robust z {:.1f})",
                                s.mean_step_time_s * 1e3, median_step_s * 1e3, s.step_time_robust_z));
    if (why.empty()) continue;
    s.straggler = true;
    s.reason = why[0];
    for (size_t i = 1; i < why.size(); ++i) s.reason += "; " + why[i];
    report->stragglers.push_back(s.rank);
  }
}

}  // namespace

RankCollectiveTimes CollectiveTimesOf(const RankTrace& t, const std::vector<uint32_t>& events,
                                      const std::vector<int64_t>& event_steps,
                                      const std::vector<uint32_t>* path_events) {
  RankCollectiveTimes rc;
  std::vector<std::pair<uint32_t, int64_t>> comm;  // (event, step)
  const bool with_steps = event_steps.size() == events.size();
  std::vector<int8_t> is_comm(t.names.size(), -1);  // per name, classified once
  for (size_t k = 0; k < events.size(); ++k) {
    const uint32_t i = events[k];
    if (i >= t.events.size()) continue;
    const TraceEvent& e = t.events[i];
    if (e.kind != EventKind::kKernel || e.name >= t.names.size()) continue;
    int8_t& c = is_comm[e.name];
    if (c < 0) c = IsCommunicationKernel(t.names[e.name]);
    if (c) comm.emplace_back(i, with_steps ? event_steps[k] : -1);
  }
  std::stable_sort(comm.begin(), comm.end(),
                   [&](const auto& a, const auto& b) { return t.events[a.first].ts_ns < t.events[b.first].ts_ns; });
  for (const auto& [i, step] : comm) {
    const TraceEvent& e = t.events[i];
    const CollectiveArgs* args = e.collective >= 0 && static_cast<size_t>(e.collective) < t.collectives.size()
                                     ? &t.collectives[static_cast<size_t>(e.collective)]
                                     : nullptr;
    const double dur_s = static_cast<double>(e.dur_ns) * 1e-9;
    const GroupKey key{CollectiveKindOf(t.names[e.name], args), args ? args->process_group : std::string()};
    rc.durations_s[key].push_back(dur_s);
    rc.steps[key].push_back(step);
    rc.total_s += dur_s;
    if (path_events) rc.on_path[key].push_back(std::binary_search(path_events->begin(), path_events->end(), i) ? 1 : 0);
  }
  return rc;
}

StragglerReport FindStragglers(const std::vector<StragglerInput>& inputs) {
  StragglerReport report;
  const size_t n = inputs.size();
  report.ranks.resize(n);
  std::vector<RankComm> comm;
  comm.reserve(n);
  for (size_t r = 0; r < n; ++r) {
    report.ranks[r].rank = inputs[r].rank;
    comm.push_back(inputs[r].comm);
  }

  // Match the n-th collective of each group across the ranks that have the group.
  std::map<GroupKey, std::vector<size_t>> members;
  for (size_t r = 0; r < n; ++r)
    for (const auto& [key, durs] : comm[r].durations_s) members[key].push_back(r);
  std::map<int64_t, StepWait> step_waits;
  for (const auto& [key, ranks] : members) {
    if (ranks.size() < 2) continue;
    MatchCollectiveGroup(key, ranks, comm, &report, &step_waits);
  }

  for (const auto& [step, w] : step_waits) {
    if (w.caused_s.empty()) continue;
    const auto top = std::max_element(w.caused_s.begin(), w.caused_s.end(),
                                      [](const auto& a, const auto& b) { return a.second < b.second; });
    report.by_step.push_back({step, inputs[top->first].rank, top->second, w.total_s, w.collectives});
  }

  const std::vector<double> means = SetStepTimeZ(inputs, &report);
  if (n < 2) return report;
  FlagStragglers(comm, means, &report);
  return report;
}

}  // namespace paratune
