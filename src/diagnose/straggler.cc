// straggler (issue 11, rule 11): a rank that holds the others back, from two sources.
//
// 1. Megatron-LM's StragglerDetector lines (megatron/core/utils.py StragglerDetector.report(),
//    --log-straggler): each report names the rank with the lowest estimated throughput (MnEtpt)
//    and the one with the longest iteration time (MxRtt). In synchronous data/tensor/pipeline
//    parallel training every rank waits for the slowest at each collective, so in one report the
//    share of time lost to it is 1 - min_etpt / max_etpt (the fastest rank shows what the others
//    could do). A rank is a straggler when it is the MnEtpt rank in at least kMinReportShare of at
//    least kMinReports reports and that is unlikely by chance: the binomial tail
//    P(X >= k; n, 1/W), W = the largest rank named + 1 (a lower bound of the world size), is at
//    most kMaxChanceProbability. Its loss is the mean over all reports of 1 - min/max where it was
//    the MnEtpt rank (0 in the others).
// 2. Trace analysis (analysis/stragglers.h: the rank that arrives last at most collectives, or
//    whose step time is an outlier): each flagged rank's caused wait over the median rank's
//    summed step time, or its step-time excess over its mean step time, whichever is larger.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "diagnose/rules.h"
#include "util/stats.h"

namespace paratune {
namespace {

// Reports needed before a rank's recurrence means anything.
constexpr int kMinReports = 5;
// The same rank is the slowest in at least a third of the reports (two ranks taking turns are
// both reported)...
constexpr double kMinReportShare = 1.0 / 3.0;
// ...and that many by chance among W equally fast ranks has probability at most 0.1%.
constexpr double kMaxChanceProbability = 1e-3;
// A hardware cue is named when the straggler also has the lowest clock / highest temperature /
// lowest power in at least half of the reports.
constexpr double kCueShare = 0.5;

// P(X >= k) for X ~ Binomial(n, p), summed in log space (no overflow for any n).
double BinomialTail(int n, int k, double p) {
  if (k <= 0) return 1.0;
  if (p <= 0) return 0.0;
  if (p >= 1) return 1.0;
  double total = 0;
  for (int x = k; x <= n; ++x) {
    const double log_term = std::lgamma(n + 1.0) - std::lgamma(x + 1.0) - std::lgamma(n - x + 1.0) + x * std::log(p) +
                            (n - x) * std::log1p(-p);
    total += std::exp(log_term);
  }
  return std::min(1.0, total);
}

// Megatron StragglerDetector reports counted per rank: how often each was the slowest (lowest
// MnEtpt), had the longest MxRtt, the lowest clock, the highest temperature or the lowest power,
// and its summed share of time lost; world: the largest rank named + 1.
struct ReportTally {
  int world = 0;
  std::map<int, int> slowest, max_rtt, low_clock, hot, low_power;
  std::map<int, double> loss_sum;
};

// Counts the reports per rank.
ReportTally TallyReports(const std::vector<StragglerDetectorLine>& rep) {
  ReportTally t;
  for (const auto& d : rep) {
    for (int r :
         {d.min_rtt_rank, d.max_rtt_rank, d.min_etpt_rank, d.max_etpt_rank, d.min_power_rank, d.max_power_rank,
          d.min_temp_rank, d.max_temp_rank, d.min_clock_rank, d.max_clock_rank, d.min_util_rank, d.max_util_rank})
      t.world = std::max(t.world, r + 1);
    ++t.slowest[d.min_etpt_rank];
    ++t.max_rtt[d.max_rtt_rank];
    if (d.min_clock_rank >= 0 && d.min_clock_hz < d.max_clock_hz) ++t.low_clock[d.min_clock_rank];
    if (d.max_temp_rank >= 0 && d.max_temp_c > d.min_temp_c) ++t.hot[d.max_temp_rank];
    if (d.min_power_rank >= 0 && d.min_power_w < d.max_power_w) ++t.low_power[d.min_power_rank];
    if (d.max_etpt_flops > 0) t.loss_sum[d.min_etpt_rank] += 1.0 - d.min_etpt_flops / d.max_etpt_flops;
  }
  return t;
}

// Straggler rank r's part of the finding: its evidence, its part of `who` and its hardware cues.
void DescribeStraggler(int r, const std::vector<StragglerDetectorLine>& rep, const std::string& path, ReportTally& t,
                       Finding& f, std::string& who, std::string& cues) {
  const int n = static_cast<int>(rep.size());
  const int c = t.slowest[r];
  who += fmt::format("{}rank {} ({} of {} reports, {:.1f}% of the time lost)", who.empty() ? "" : ", ", r, c, n,
                     100 * t.loss_sum[r] / n);
  f.evidence.push_back({fmt::format("reports with rank {} the lowest MnEtpt", r), static_cast<double>(c), "", path});
  f.evidence.push_back(
      {fmt::format("reports with rank {} the longest MxRtt", r), static_cast<double>(t.max_rtt[r]), "", path});
  f.evidence.push_back({fmt::format("mean 1 - MnEtpt/MxEtpt while rank {} was the slowest", r),
                        t.loss_sum[r] / std::max(c, 1), "fraction", path});
  if (t.low_clock[r] >= kCueShare * n) {
    double clock_low_sum = 0, clock_high_sum = 0;
    for (const auto& d : rep)
      if (d.min_clock_rank == r) {
        clock_low_sum += d.min_clock_hz;
        clock_high_sum += d.max_clock_hz;
      }
    const double lo = clock_low_sum / t.low_clock[r], hi = clock_high_sum / t.low_clock[r];
    cues += fmt::format(
        " Rank {} also had the lowest SM clock in {} reports ({:.0f} MHz against up to {:.0f} MHz):"
        " a clock-throttled GPU.",
        r, t.low_clock[r], lo / 1e6, hi / 1e6);
    f.evidence.push_back({fmt::format("mean lowest clock (rank {})", r), lo, "Hz", path});
  }
  if (t.hot[r] >= kCueShare * n) cues += fmt::format(" Rank {} was the hottest GPU in {} reports.", r, t.hot[r]);
  if (t.low_power[r] >= kCueShare * n)
    cues += fmt::format(" Rank {} drew the least power in {} reports.", r, t.low_power[r]);
}

class StragglerRule : public Rule {
 public:
  const char* Name() const override { return "straggler"; }
  const char* Summary() const override {
    return "a rank the others keep waiting for (Megatron StragglerDetector lines, or last arrivals at collectives in "
           "traces)";
  }

  void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const override {
    for (const TrainingLog& log : in.logs)
      if (!log.stragglers.empty()) CheckDetector(log, out);
    if (in.analysis) CheckTraces(*in.analysis, out);
  }

 private:
  void CheckDetector(const TrainingLog& log, std::vector<Finding>* out) const {
    const auto& rep = log.stragglers;
    const int n = static_cast<int>(rep.size());
    if (n < kMinReports) return;
    ReportTally tally = TallyReports(rep);
    const int world = tally.world;
    std::map<int, int>& slowest = tally.slowest;
    std::map<int, double>& loss_sum = tally.loss_sum;
    if (world < 2) return;
    std::vector<int> ranks;
    double loss = 0;
    for (const auto& [rank, count] : slowest) {
      if (static_cast<double>(count) < kMinReportShare * n) continue;
      if (BinomialTail(n, count, 1.0 / world) > kMaxChanceProbability) continue;
      ranks.push_back(rank);
      loss += loss_sum[rank] / n;
    }
    if (ranks.empty()) return;
    Finding f;
    f.rule = Name();
    f.loss_fraction = std::min(1.0, loss);
    f.severity = SeverityForLoss(f.loss_fraction);
    f.where.gpus = ranks;
    std::string who, cues;
    for (int r : ranks) DescribeStraggler(r, rep, log.path, tally, f, who, cues);
    for (const auto& d : rep)
      if (std::find(ranks.begin(), ranks.end(), d.min_etpt_rank) != ranks.end()) {
        f.where.lines.push_back(fmt::format("{}:{}", log.path, d.line));
        if (f.where.lines.size() >= 10) break;  // the first few; the counts are in the evidence
      }
    if (!std::isnan(rep.front().time_s) && !std::isnan(rep.back().time_s))
      f.where.time_ranges_s.push_back({rep.front().time_s, rep.back().time_s});
    if (rep.front().iteration >= 0) f.where.iterations = {rep.front().iteration, rep.back().iteration};
    f.title = fmt::format(
        "Straggler: {} {} the slowest in Megatron's StragglerDetector reports ({:.1f}% of throughput lost)",
        ranks.size() == 1 ? "rank" : "ranks",
        [&] {
          std::string s;
          for (int r : ranks) s += (s.empty() ? "" : ", ") + std::to_string(r);
          return s + (ranks.size() == 1 ? " is" : " are");
        }(),
        100 * f.loss_fraction);
    f.message = fmt::format(
        "Over {} reports ({} ranks or more), {}. Every rank waits for the slowest at each collective, so the job runs "
        "at its "
        "pace.{}",
        n, world, who, cues);
    f.fix =
        "Check the straggler's GPU and host: nvidia-smi -q -d PERFORMANCE,CLOCK,TEMPERATURE on its node (throttle "
        "reasons), "
        "CPU and data-loader contention, a degraded NVLink/NIC; exclude or replace the node (Slurm --exclude). "
        "Megatron --straggler-minmax-count K lists the K slowest ranks.";
    out->push_back(std::move(f));
  }

  void CheckTraces(const TraceAnalysis& a, std::vector<Finding>* out) const {
    const StragglerReport& s = a.stragglers;
    if (s.stragglers.empty()) return;
    // The run's time: the median over ranks of the summed step times (or the analysed window).
    std::vector<double> totals;
    for (const auto& r : a.ranks) {
      double t = 0;
      for (const auto& it : r.iterations) t += it.cpu_step_s;
      totals.push_back(t > 0 ? t : r.temporal.window_s);
    }
    const double total = totals.empty() ? 0 : MedianAndMad(totals).median;
    Finding f;
    f.rule = Name();
    f.where.gpus = s.stragglers;
    double loss = 0;
    bool estimated = false;
    std::string who;
    std::vector<double> steps;
    for (const auto& r : s.ranks)
      if (r.mean_step_time_s > 0) steps.push_back(r.mean_step_time_s);
    const double median_step = steps.empty() ? 0 : MedianAndMad(steps).median;
    for (const auto& r : s.ranks) {
      if (!r.straggler) continue;
      double l = 0;
      if (total > 0) {
        l = std::max(l, r.caused_wait_s / total);
        estimated = true;
      }
      if (r.mean_step_time_s > 0 && median_step > 0 && r.mean_step_time_s > median_step) {
        l = std::max(l, (r.mean_step_time_s - median_step) / r.mean_step_time_s);
        estimated = true;
      }
      loss = std::max(loss, l);
      who += fmt::format("{}rank {}: {}", who.empty() ? "" : "; ", r.rank, r.reason);
      f.evidence.push_back(
          {fmt::format("rank {} last arrivals", r.rank), static_cast<double>(r.last_arrivals), "", "trace analysis"});
      f.evidence.push_back({fmt::format("rank {} collectives matched", r.rank),
                            static_cast<double>(r.collectives_matched), "", "trace analysis"});
      f.evidence.push_back({fmt::format("rank {} caused wait", r.rank), r.caused_wait_s, "s", "trace analysis"});
      if (r.mean_step_time_s > 0)
        f.evidence.push_back(
            {fmt::format("rank {} mean step time", r.rank), r.mean_step_time_s, "s", "trace analysis"});
    }
    if (total > 0) f.evidence.push_back({"median rank's traced time", total, "s", "trace analysis"});
    f.loss_fraction = std::min(1.0, loss);
    // A straggler whose cost cannot be estimated is still a clear fault: warning (issue 11 brief).
    f.severity = estimated ? SeverityForLoss(f.loss_fraction) : Severity::kWarning;
    std::string list;
    for (int r : s.stragglers) list += (list.empty() ? "" : ", ") + std::to_string(r);
    f.title = fmt::format("Straggler in the traces: rank{} {} ({:.1f}% of the time lost waiting for it)",
                          s.stragglers.size() == 1 ? "" : "s", list, 100 * f.loss_fraction);
    f.message =
        fmt::format("Across {} ranks and {} matched collectives: {}.", a.ranks.size(), s.collectives_matched, who);
    f.fix =
        "Look at what the straggler does before its collectives (profile that rank: data loading, host CPU contention, "
        "a throttled GPU, uneven pipeline stages or MoE routing); exclude or replace its node if it is the hardware.";
    out->push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeStragglerRule() { return std::make_unique<StragglerRule>(); }

}  // namespace paratune
