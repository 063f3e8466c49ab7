// Rule critical_path: what the longest chain of dependent work in a step is made of (HTA's
// critical path, analysis/critical_path.h; asked by `analyze --critical-path` or computed by
// diagnose from traces over the first ProfilerStep). Three findings, each over the ranks whose
// path shows it:
//   CPU-bound    CPU operators and launch delays hold most of the path (HTA's cpu_bound and
//                gpu_kernel_launch_overhead): the GPU waits for the host; the loss is the GPU's
//                idle share of that window (the time a faster host could give back), at most
//                the CPU share of the path;
//   data loading HTA's data_loading class on the path;
//   waits        communication on the path waiting for another rank to arrive (the cross-rank
//                collective edge): that rank, not this one, is the one to speed up.
// Thresholds: docs/diagnose.md "critical_path".
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "diagnose/rules.h"

namespace paratune {
namespace {

// HTA's summary reads "X% CPU bound": a path mostly on the host is host-bound.
constexpr double kCpuBoundShare = 0.5;
// Data loading or collective waits worth naming: a tenth of the path.
constexpr double kShareWorthNaming = 0.1;

double Share(const TraceCriticalPath& c, CriticalBound b) {
  for (const CriticalBoundShare& s : c.bounds)
    if (s.bound == b) return s.pct / 100;
  return 0;
}

struct PathRank {
  const RankAnalysis* r;
  const TraceCriticalPath* c;
  double window_s;
};

std::string TopCpuEvents(const TraceCriticalPath& c) {
  std::string s;
  int n = 0;
  for (const CriticalEvent& e : c.top_events) {
    if (e.bound != CriticalBound::kCpu || n == 3 || e.time_s < 0.01 * c.length_s) continue;
    s += fmt::format("{}{} {:.2f} ms", n++ ? ", " : "", e.name.substr(0, 60), e.time_s * 1e3);
  }
  return s;
}

class CriticalPathRule final : public Rule {
 public:
  const char* Name() const override { return "critical_path"; }
  const char* Summary() const override {
    return "traces: the step's critical path (HTA) mostly CPU work and launches, data loading on it, or collectives "
           "on it waiting for another rank";
  }
  void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const override {
    if (!in.analysis) return;
    std::vector<PathRank> paths;
    for (const RankAnalysis& r : in.analysis->ranks)
      if (r.critical_path && r.critical_path->length_s > 0)
        paths.push_back({&r, &*r.critical_path, r.critical_path->window_end_s - r.critical_path->window_start_s});
    if (paths.empty()) return;
    CheckCpuBound(paths, out);
    CheckDataLoading(paths, out);
    CheckWaits(paths, out);
  }

 private:
  // A finding of this rule over `gpus`, its severity from its loss.
  Finding Started(double loss, std::vector<int> gpus) const {
    Finding f;
    f.rule = Name();
    f.loss_fraction = loss;
    f.severity = SeverityForLoss(loss);
    f.where.gpus = std::move(gpus);
    return f;
  }

  void CheckCpuBound(const std::vector<PathRank>& paths, std::vector<Finding>* out) const {
    std::vector<int> ranks;
    double cpu = 0, loss = 0, worst_idle = 0;
    const PathRank* worst = nullptr;
    for (const PathRank& p : paths) {
      const double share = Share(*p.c, CriticalBound::kCpu) + Share(*p.c, CriticalBound::kLaunchOverhead);
      if (share < kCpuBoundShare) continue;
      ranks.push_back(p.r->rank);
      const double idle = p.r->temporal.window_s > 0 ? p.r->temporal.idle_s / p.r->temporal.window_s : 0;
      if (!worst || share > cpu) worst = &p, cpu = share, worst_idle = idle;
      loss = std::max(loss, std::min(idle, share));
    }
    if (!worst) return;
    Finding f = Started(loss, ranks);
    f.title = fmt::format("critical path CPU-bound: {:.0f}% of the longest chain is host work and launches", 100 * cpu);
    f.message = fmt::format(
        "On rank {} the critical path of the window (HTA's critical-path analysis) is {:.2f} ms, {:.0f}% of it CPU "
        "operators and kernel launch delays: the GPU waits on the host. On the path: {}.",
        worst->r->rank, worst->c->length_s * 1e3, 100 * cpu, TopCpuEvents(*worst->c));
    const auto& seq = worst->r->kernel_sequences;
    if (!seq.empty())
      f.message += fmt::format(
          " The most frequent kernel sequence ({} x {} GPU events under {}) is a fusion or CUDA-graph "
          "candidate.",
          seq.front().count, seq.front().pattern.size() - 1, seq.front().pattern.front());
    f.fix =
        "take host work off the path: capture the step in CUDA graphs (torch.compile(mode=\"reduce-overhead\"), "
        "Megatron-LM --enable-cuda-graph), fuse small kernels (torch.compile, Transformer Engine), remove host syncs "
        "(.item(), .cpu(), cudaStreamSynchronize) from the loop, and give the GPU more work per launch (larger "
        "micro-batch)";
    f.evidence = {{"critical path", worst->c->length_s, "s", "trace critical path"},
                  {"CPU and launch share of the path", cpu, "fraction", "trace critical path"},
                  {"GPU idle share", worst_idle, "fraction", "trace temporal breakdown"}};
    out->push_back(std::move(f));
  }

  void CheckDataLoading(const std::vector<PathRank>& paths, std::vector<Finding>* out) const {
    std::vector<int> ranks;
    double share = 0, loss = 0;
    for (const PathRank& p : paths) {
      const double s = Share(*p.c, CriticalBound::kDataLoading);
      if (s < kShareWorthNaming) continue;
      ranks.push_back(p.r->rank);
      share = std::max(share, s);
      if (p.window_s > 0) loss = std::max(loss, s * p.c->length_s / p.window_s);
    }
    if (ranks.empty()) return;
    Finding f = Started(loss, ranks);
    f.title = fmt::format("data loading on the critical path: {:.0f}% of it", 100 * share);
    f.message = fmt::format(
        "The data-loading events hold up to {:.0f}% of the critical path of the window: the step waits for its "
        "input.",
        100 * share);
    f.fix =
        "load ahead of the step: DataLoader(num_workers=N, prefetch_factor=2..4, pin_memory=True, "
        "persistent_workers=True)";
    f.evidence = {{"data loading share of the path", share, "fraction", "trace critical path"}};
    out->push_back(std::move(f));
  }

  void CheckWaits(const std::vector<PathRank>& paths, std::vector<Finding>* out) const {
    std::map<int, double> caused;  // rank waited for -> wait on the others' paths
    std::vector<int> waiting;
    double worst_share = 0, loss = 0;
    for (const PathRank& p : paths) {
      const double share = p.c->collective_wait_s / p.c->length_s;
      if (share < kShareWorthNaming) continue;
      waiting.push_back(p.r->rank);
      worst_share = std::max(worst_share, share);
      if (p.window_s > 0) loss = std::max(loss, p.c->collective_wait_s / p.window_s);
      for (const CriticalWait& w : p.c->waited_for) caused[w.rank] += w.wait_s;
    }
    if (waiting.empty()) return;
    const auto last = std::max_element(caused.begin(), caused.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    Finding f = Started(loss, waiting);
    f.title = fmt::format("critical paths wait at collectives for rank {}", last->first);
    f.message = fmt::format(
        "Up to {:.0f}% of the critical path of {} rank(s) is communication waiting for the last rank to arrive "
        "(each collective's kernel minus the shortest kernel of it across ranks); rank {} arrived last for {:.2f} "
        "ms of it. Speeding up this rank does not shorten its step; speeding up rank {} does.",
        100 * worst_share, waiting.size(), last->first, last->second * 1e3, last->first);
    f.fix = fmt::format(
        "look at rank {}: its own critical path (analyze --critical-path --rank {}), its data "
        "loading, its GPU's clocks, and the straggler rule's evidence",
        last->first, last->first);
    f.evidence = {{"collective wait share of the path", worst_share, "fraction", "trace critical path"},
                  {fmt::format("wait on rank {}", last->first), last->second, "s", "trace collectives across ranks"}};
    out->push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeCriticalPathRule() { return std::make_unique<CriticalPathRule>(); }

}  // namespace paratune
