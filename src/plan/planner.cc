#include "plan/planner.h"

#include <array>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>

#include "cost/stage_costs.h"
#include "layout/pipeline_split.h"
#include "layout/constraints.h"
#include "plan/explain.h"
#include "plan/ranking.h"
#include "plan/step_cost_cache.h"
#include "step/compose.h"
#include "util/error.h"

namespace paratune {
namespace {

std::vector<int> Divisors(int64_t n) {
  std::vector<int> d;
  for (int64_t i = 1; i * i <= n; ++i)
    if (n % i == 0) {
      d.push_back(static_cast<int>(i));
      if (i * i != n) d.push_back(static_cast<int>(n / i));
    }
  std::sort(d.begin(), d.end());
  return d;
}

// "2, 4, 8" or, for long lists, "2, 4, 8, ..., 2048".
template <class T>
std::string List(const std::vector<T>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v.size() > 6 && i == 3) {
      s += fmt::format(", ..., {}", v.back());
      break;
    }
    s += (i ? ", " : "") + fmt::format("{}", v[i]);
  }
  return s;
}

// Values of one dimension: the pin alone, or every candidate up to the bound.
std::vector<int> Choices(const std::optional<int>& pin, std::vector<int> all, int bound) {
  if (pin) return {*pin};
  if (bound > 0) all.erase(std::remove_if(all.begin(), all.end(), [&](int x) { return x > bound; }), all.end());
  return all;
}

void CheckPin(const std::optional<int>& v, const char* field, int lo, int hi = 1 << 30) {
  if (v && (*v < lo || *v > hi))
    throw InputError(fmt::format("`{}` must be between {} and {}, got {}", field, lo, hi, *v));
}

// The levels of the enumeration, outermost first: a constraint of the table (layout/constraints.h) is
// applied at the first level where every dimension it reads is fixed.
constexpr uint32_t kFixedAtStart = kDimSwitches;
// Micro-batch sizes up to this are tried whenever they divide the per-DP batch; beyond, powers of
// two (docs/planner.md).
constexpr int64_t kSmallMicroBatch = 16;  // the overlap, flash-attention and SP switches
// The schedule is innermost: it changes no stage cost, so one StepCosts serves every schedule.
constexpr uint32_t kLevels[] = {kDimPrecision,    kDimTp,   kDimPp,        kDimVp,  kDimSplit,   kDimCp,
                                kDimEp | kDimEtp, kDimZero, kDimRecompute, kDimMbs, kDimSchedule};
enum Level : size_t { kLPrecision, kLTp, kLPp, kLVp, kLSplit, kLCp, kLEp, kLZero, kLRecompute, kLMbs, kLSchedule };

// Peak micro-batches in flight on rank s that the schedule's order alone implies: the forwards
// it runs before its first backward, plus that one (schedule.cc): GPipe all m; 1F1B and ZB-H1
// min(pp-s, m); interleaved min(2(pp-s-1) + (vp-1)pp + 1, m*vp) chunks (all m*vp when m == pp),
// over vp. The simulated peak is never lower.
double InflightLowerBound(ScheduleKind k, int pp, int vp, int s, int64_t m) {
  switch (k) {
    case ScheduleKind::kGpipe:
      return static_cast<double>(m);
    case ScheduleKind::k1F1B:
    case ScheduleKind::kZbH1:
      return static_cast<double>(std::min<int64_t>(pp - s, m));
    case ScheduleKind::kInterleaved: {
      const int64_t total = m * vp;
      const int64_t w =
          m == pp ? total : std::min<int64_t>(2LL * (pp - s - 1) + static_cast<int64_t>(vp - 1) * pp + 1, total);
      return static_cast<double>(w) / vp;
    }
  }
  return 0;
}

class Search {
 public:
  explicit Search(const PlanRequest& r)
      : r_(r),
        m_(r.model),
        g_(r.cluster.gpu),
        domain_(r.cluster.fabric.nvlink_domain),
        costs_(r.model, r.cluster, r.options.state_bytes) {
    uint32_t fixed = kFixedAtStart;
    for (size_t i = 0; i < std::size(kLevels); ++i) {
      fixed |= kLevels[i];
      level_rules_[i] = ConstraintsReading(kLevels[i], fixed);
    }
    // Rules that read only what is fixed from the start run with the first level.
    for (const LayoutConstraint* rule : ConstraintsReading(kFixedAtStart, kFixedAtStart))
      level_rules_[0].push_back(rule);
  }

  PlanResult Run() {
    Validate();
    res_.memory_limit_bytes = (1 - r_.headroom) * g_.hbm_bytes;
    std::vector<Precision> precisions;
    if (r_.any_precision) {
      for (size_t i = 0; i < kPrecisionNames.canonical; ++i)
        if (g_.peak_flops(kPrecisionNames.entries[i].first) > 0) precisions.push_back(kPrecisionNames.entries[i].first);
    } else {
      precisions.push_back(r_.training.precision);
    }
    for (Precision prec : precisions) {
      t_ = r_.training;
      t_.precision = prec;
      l_ = r_.switches;
      if (!Passes(kLPrecision, "precision", static_cast<int>(prec), PrecisionName(prec))) continue;
      SearchTp();
    }
    Evaluate();

    if (res_.fitting == 0) throw InputError(NothingFits());
    std::sort(fits_.begin(), fits_.end(),
              [&](const Estimate& a, const Estimate& b) { return RanksBefore(a, b, r_.objective, domain_); });
    const size_t keep = std::min(fits_.size(), static_cast<size_t>(std::max(1, r_.top)));
    res_.explanation = ExplainPlan(fits_, r_, res_.memory_limit_bytes, best_none_, min_none_need_);
    fits_.resize(keep);
    res_.ranked = std::move(fits_);
    Notes();
    return res_;
  }

 private:
  void Validate() const {
    if (!(r_.headroom >= 0 && r_.headroom < 1))
      throw InputError(fmt::format("`headroom` must be in [0, 1), got {}", r_.headroom));
    if (r_.top < 1) throw InputError(fmt::format("`top` must be at least 1, got {}", r_.top));
    CheckPin(r_.tp, "tp", 1);
    CheckPin(r_.pp, "pp", 1);
    CheckPin(r_.vp, "vp", 1);
    CheckPin(r_.cp, "cp", 1);
    CheckPin(r_.ep, "ep", 1);
    CheckPin(r_.etp, "etp", 1);
    CheckPin(r_.zero, "zero", 0, 3);
    CheckPin(r_.mbs, "mbs", 1);
    for (auto [v, field] : {std::pair{r_.max_tp, "max_tp"},
                            {r_.max_pp, "max_pp"},
                            {r_.max_vp, "max_vp"},
                            {r_.max_cp, "max_cp"},
                            {r_.max_ep, "max_ep"},
                            {r_.max_mbs, "max_mbs"}})
      if (v < 0) throw InputError(fmt::format("`{}` must not be negative, got {}", field, v));
    // The table's size rule on the fixed inputs (the searched sizes are positive by construction).
    const Layout fixed = r_.switches;
    if (std::string msg = LayoutConstraints().front().check({m_, r_.cluster, r_.training, fixed, r_.options.rules});
        !msg.empty())
      throw InputError(msg);
  }

  // Applies the rules of `level` to the current partial layout and returns the first that fails
  // (one suffices to drop the branch), recording what it excluded; nullptr when all hold.
  // `shown` names the value in the notes (an enum's name, a split's label); "" prints the number.
  const LayoutConstraint* Failing(size_t level, const char* dim, int value, const std::string& shown = "") {
    const ConstraintInput in{m_, r_.cluster, t_, l_, r_.options.rules};
    for (const LayoutConstraint* rule : level_rules_[level]) {
      std::string msg = rule->check(in);
      if (msg.empty()) continue;
      Exclusion& x = excluded_[rule->id];
      if (x.count++ == 0) {
        x.dim = dim;
        x.example = std::move(msg);
      }
      if (x.dim == dim) x.values.emplace(value, shown.empty() ? std::to_string(value) : shown);
      ++res_.rejected_by_rules;
      return rule;
    }
    return nullptr;
  }
  bool Passes(size_t level, const char* dim, int value, const std::string& shown = "") {
    return Failing(level, dim, value, shown) == nullptr;
  }

  void SearchTp() {
    const int64_t world = r_.cluster.gpus;
    for (int tp : Choices(r_.tp, Divisors(world), r_.max_tp)) {
      l_.tp = tp;
      if (!Passes(kLTp, "tp", tp)) continue;
      for (int pp : Choices(r_.pp, Divisors(world / tp), r_.max_pp)) {
        l_.pp = pp;
        if (!Passes(kLPp, "pp", pp)) continue;
        for (int vp : VirtualStages(pp)) {
          l_.vp = vp;
          if (!Passes(kLVp, "vp", vp)) continue;
          const std::vector<std::vector<int>> splits = SplitChoices(pp, vp);
          for (size_t si = 0; si < splits.size(); ++si) {
            l_.pp_layout = splits[si];
            split_ = static_cast<uint32_t>(splits_.size());
            splits_.push_back(splits[si]);
            if (!Passes(kLSplit, "split", static_cast<int>(si), SplitLabel(m_.layers, pp, vp, splits[si]))) continue;
            SearchCp();
          }
        }
      }
    }
  }

  void SearchCp() {
    const int64_t world = r_.cluster.gpus;
    for (int cp : ContextParallel(world / (static_cast<int64_t>(l_.tp) * l_.pp))) {
      l_.cp = cp;
      DeriveDp(r_.cluster, l_);
      if (!Passes(kLCp, "cp", cp)) continue;
      for (auto [ep, etp] : ExpertChoices()) {
        l_.ep = ep;
        l_.etp = etp;
        if (!Passes(kLEp, "ep*etp", ep * std::max(1, etp))) continue;
        branch_ = static_cast<uint32_t>(branches_.size());
        branches_.push_back({split_, l_.dp, l_.tp, l_.pp, l_.vp, l_.cp, l_.ep, l_.etp, t_.precision});
        costs_.NewBranch();  // the ZeRO stages below share their ZeRO-free stage costs
        for (int zero : Choices(r_.zero, {0, 1, 2, 3}, 0)) {
          l_.zero = zero;
          if (!Passes(kLZero, "zero", zero)) continue;
          for (Recompute rc : RecomputeChoices()) {
            l_.recompute = rc;
            if (!Passes(kLRecompute, "recompute", static_cast<int>(rc), RecomputeName(rc))) continue;
            RunMicroBatches();
          }
        }
        // Once per branch: a long enumeration shows progress and can be stopped (Ctrl-C in Python).
        ReportProgress(r_.progress, "planning, layouts considered", res_.candidates, 0);
      }
    }
  }

  // The splits of the layers over pp*vp chunks (layout/pipeline_split.h SplitCandidates), or the
  // given pp_layout. When none exists, the even split, so that pp-divides-layers says why.
  std::vector<std::vector<int>> SplitChoices(int pp, int vp) const {
    if (!r_.switches.pp_layout.empty()) return {r_.switches.pp_layout};
    std::vector<std::vector<int>> v = SplitCandidates(m_.layers, pp, vp);
    if (v.empty()) v.push_back({});
    return v;
  }

  // The schedules searched (docs/planner.md): a pinned one; none to choose with pp 1; with vp > 1
  // interleaved 1F1B; else 1F1B and ZB-H1. GPipe is only run pinned: it has 1F1B's bubble with
  // every micro-batch in flight.
  std::vector<std::optional<ScheduleKind>> ScheduleChoices(int pp, int vp) const {
    if (r_.switches.schedule) return {r_.switches.schedule};
    if (pp == 1 || vp > 1) return {std::nullopt};
    return {std::nullopt, ScheduleKind::kZbH1};
  }

  // Virtual stages: with pp > 1 every vp for which a split exists (SplitChoices), at least one
  // layer per chunk; the chunk count of a given pp_layout.
  std::vector<int> VirtualStages(int pp) const {
    if (r_.vp) return {*r_.vp};
    if (!r_.switches.pp_layout.empty()) {
      const int chunks = static_cast<int>(r_.switches.pp_layout.size());
      return {chunks % pp == 0 ? chunks / pp : 1};
    }
    if (pp == 1) return {1};
    std::vector<int> v;
    for (int64_t x = 1; x <= m_.layers / pp && (r_.max_vp == 0 || x <= r_.max_vp); ++x)
      if (!SplitCandidates(m_.layers, pp, static_cast<int>(x)).empty()) v.push_back(static_cast<int>(x));
    if (v.empty()) v.push_back(1);  // lets pp-divides-layers say why
    return v;
  }

  // Context parallelism only for long sequences (search policy, noted in the report).
  std::vector<int> ContextParallel(int64_t rest) const {
    if (r_.cp) return {*r_.cp};
    if (r_.training.seq < kContextParallelMinSeq) return {1};
    return Choices(std::nullopt, Divisors(rest), r_.max_cp);
  }

  // EP over the divisors of the expert count, expert TP over the divisors of the NVLink domain
  // (every GPU count when cross-domain TP is allowed); the rules keep the valid pairs.
  std::vector<std::pair<int, int>> ExpertChoices() const {
    if (!m_.is_moe()) return {{r_.ep.value_or(1), r_.etp.value_or(0)}};
    std::vector<std::pair<int, int>> v;
    const std::vector<int> etps = r_.etp ? std::vector<int>{*r_.etp}
                                         : Divisors(r_.options.rules.allow_cross_domain_tp ? r_.cluster.gpus : domain_);
    for (int ep : Choices(r_.ep, Divisors(m_.experts), r_.max_ep))
      for (int et : etps) v.push_back({ep, et});
    return v;
  }

  std::vector<Recompute> RecomputeChoices() const {
    if (r_.recompute) return {*r_.recompute};
    return {Recompute::kNone, Recompute::kSelective, Recompute::kFull};
  }

  // Micro-batch sizes: powers of two dividing the per-DP batch (or the pin). Every valid layout
  // becomes a candidate with two bounds from its stage costs alone (no simulation): its step
  // time is at least m times the busiest rank's passes per micro-batch (each rank runs all of
  // them, one at a time, on its compute stream), and its peak memory at least the largest
  // stage's states plus the micro-batches its schedule's order keeps in flight
  // (InflightLowerBound). Evaluate() then simulates them best bound first.
  void RunMicroBatches() {
    const int64_t gb = r_.training.global_batch, dp = l_.dp;
    std::vector<int> mbs;
    if (r_.mbs) {
      mbs = {*r_.mbs};
    } else if (gb % dp == 0) {
      // Every divisor of the per-DP batch up to kSmallMicroBatch (Calculon's GPT-3 optimum uses
      // mbs 3), then the powers of two beyond, ascending.
      const int64_t per_dp = gb / dp;
      const auto allowed = [&](int64_t b) { return b <= per_dp && (r_.max_mbs == 0 || b <= r_.max_mbs); };
      for (int64_t b = 1; b <= kSmallMicroBatch && allowed(b); ++b)
        if (per_dp % b == 0) mbs.push_back(static_cast<int>(b));
      for (int64_t b = 2 * kSmallMicroBatch; allowed(b); b *= 2)
        if (per_dp % b == 0) mbs.push_back(static_cast<int>(b));
    } else {
      mbs = {1};  // lets batch-divisible say why this dp has no micro-batch size
    }
    bool any = false, batch = false;
    for (size_t i = 0; i < mbs.size(); ++i) {
      l_.mbs = mbs[i];
      if (const LayoutConstraint* rule = Failing(kLMbs, "mbs", mbs[i])) {
        batch = batch || std::string_view(rule->id) == "batch-divisible";
        continue;
      }
      const StepCosts* sc = nullptr;  // one for every schedule
      for (std::optional<ScheduleKind> sk : ScheduleChoices(l_.pp, l_.vp)) {
        l_.schedule = sk;
        if (const LayoutConstraint* rule = Failing(kLSchedule, "schedule", static_cast<int>(l_.pipeline_schedule()),
                                                   ScheduleName(l_.pipeline_schedule()))) {
          batch = batch || std::string_view(rule->id) == "batch-divisible";
          continue;
        }
        any = true;
        ++res_.candidates;
        if (!sc) sc = &costs_.For(t_, l_);
        Candidate c{branch_, l_.mbs, static_cast<uint8_t>(l_.zero), static_cast<uint8_t>(l_.recompute),
                    static_cast<uint8_t>(l_.schedule ? 1 + static_cast<int>(*l_.schedule) : 0)};
        const ScheduleKind kind = l_.pipeline_schedule();
        c.step_lower_s = StepLowerBound(*sc, kind);
        for (size_t s = 0; s < sc->stages.size(); ++s) {
          const StageCost& st = sc->stages[s];
          MemoryBreakdown mem = st.memory;
          mem.activations =
              InflightLowerBound(kind, l_.pp, l_.vp, static_cast<int>(s), sc->micro_batches) * st.activation_bytes +
              st.working_bytes;
          mem.fragmentation = kAllocatorReserveFraction * mem.allocated();
          c.memory_lower_bytes = std::max(c.memory_lower_bytes, mem.total());
        }
        candidates_.push_back(std::move(c));
      }
    }
    if (!any && batch) batch_dps_.insert(dp * (r_.mbs ? *r_.mbs : 1));
  }

  // A lower bound on the step of any schedule over these stage costs (docs/planner.md): rank r
  // runs m x its passes one at a time; it cannot start before micro-batch 0's forward has passed
  // the first chunks of ranks 0..r-1, and its last backward (of its first chunk; every schedule
  // here ends a rank on one) must then pass back through them. Under ZB-H1 the k = min(r+1, m)
  // weight-gradient passes rank r runs after its last B may overlap that return.
  static double StepLowerBound(const StepCosts& sc, ScheduleKind kind) {
    const double m = static_cast<double>(sc.micro_batches);
    const bool split = kind == ScheduleKind::kZbH1;
    double before = 0, after = 0, bound = 0;
    for (size_t r = 0; r < sc.stages.size(); ++r) {
      const StageCost& st = sc.stages[r];
      const StageCost::ChunkCost& first = st.chunks.front();
      double tail = after;
      if (split) tail = std::max(0.0, after - std::min<double>(static_cast<double>(r) + 1, m) * first.weight_grad_s);
      bound = std::max(bound, before + m * st.time_s() + tail);
      before += first.forward_s;
      after += first.backward_s - (split ? first.weight_grad_s : 0);
    }
    return bound;
  }

  // The dimensions the search fixes above the ZeRO stage (SearchCp), shared by the candidates
  // below them.
  struct Branch {
    uint32_t split;  // index into splits_
    int dp, tp, pp, vp, cp, ep, etp;
    Precision precision;
  };

  // A candidate as its branch and the dimensions set below it (LayoutOf), with its bounds:
  // 32 bytes, for the 852,480 candidates of DeepSeek-V3's any-precision search, where a whole
  // Layout (and its split vector) took about six times that and an allocation.
  struct Candidate {
    uint32_t branch;  // index into branches_
    int32_t mbs;
    uint8_t zero, recompute;        // Recompute
    uint8_t schedule;               // 0: the layout's default, else 1 + ScheduleKind
    double step_lower_s = 0;        // no schedule runs the step faster
    double memory_lower_bytes = 0;  // no schedule needs less at its peak
  };
  static_assert(sizeof(Candidate) == 32);

  // The layout a candidate stands for: the request's switches with the searched dimensions.
  Layout LayoutOf(const Candidate& c) const {
    const Branch& b = branches_[c.branch];
    Layout l = r_.switches;
    l.tp = b.tp;
    l.pp = b.pp;
    l.vp = b.vp;
    l.pp_layout = splits_[b.split];
    l.cp = b.cp;
    l.dp = b.dp;
    l.ep = b.ep;
    l.etp = b.etp;
    l.zero = c.zero;
    l.recompute = static_cast<Recompute>(c.recompute);
    l.mbs = c.mbs;
    if (c.schedule == 0)
      l.schedule = std::nullopt;
    else
      l.schedule = static_cast<ScheduleKind>(c.schedule - 1);
    return l;
  }

  Estimate Compose(const Candidate& c) {
    Training t = r_.training;
    t.precision = branches_[c.branch].precision;
    ComposeOptions co;
    co.schedule_cache = &schedule_cache_;
    Estimate e = ComposeValidStep(m_, r_.cluster, t, LayoutOf(c), r_.options, co).estimate;
    ++res_.estimated;
    ReportProgress(r_.progress, "planning, layouts estimated", res_.estimated, 0);
    return e;
  }

  void NoteUnfit(const Estimate& e) {
    if (e.layout.recompute == Recompute::kNone && (min_none_need_ == 0 || e.peak_memory_bytes < min_none_need_))
      min_none_need_ = e.peak_memory_bytes;
    if (min_need_ == 0 || e.peak_memory_bytes < min_need_) min_need_ = e.peak_memory_bytes;
  }

  // Branch and bound over the candidates, smallest step-time bound first. A candidate is
  // skipped when its memory bound exceeds the limit (it cannot fit), and, ranking by throughput,
  // when even its bound's throughput is below the top-th layout found so far by more than the
  // ranking's resolution (it cannot enter the top; docs/planner.md "Pruning and speed"). A layout
  // without recomputation is kept until it cannot beat the best such layout either (the
  // explanation names it). Neither bound can drop a layout of the returned ranking.
  void Evaluate() {
    // A min-heap of (bound, index): candidates leave it in the order of a sort by bound, and once
    // a bound is below both thresholds, which only rise, the rest need no order (Settle).
    std::vector<std::pair<double, uint32_t>> heap(candidates_.size());
    for (size_t i = 0; i < heap.size(); ++i) heap[i] = {candidates_[i].step_lower_s, static_cast<uint32_t>(i)};
    const std::greater<> later;
    std::make_heap(heap.begin(), heap.end(), later);
    std::vector<uint32_t> unfit;  // skipped by the memory bound
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      const uint32_t i = heap.back().second;
      heap.pop_back();
      if (Visit(i, unfit) == Visited::kPrunedForGood) break;
    }
    for (const auto& [bound, i] : heap) Visit(i, unfit);
    // What the report says of layouts that do not fit (the smallest need, overall and without
    // recomputation) is exact: the skipped ones whose bound is below the smallest need found
    // are estimated too, smallest bound first (ties in the order they were visited). Only while
    // nothing fits, or nothing without recomputation does: otherwise no skipped one is estimated.
    if (best_none_ && res_.fitting > 0) return;
    std::sort(unfit.begin(), unfit.end(), [&](uint32_t a, uint32_t b) {
      const Candidate &x = candidates_[a], &y = candidates_[b];
      return std::tie(x.memory_lower_bytes, x.step_lower_s, a) < std::tie(y.memory_lower_bytes, y.step_lower_s, b);
    });
    for (uint32_t i : unfit) {
      const Candidate& c = candidates_[i];
      const bool for_none = !best_none_ && c.recompute == static_cast<uint8_t>(Recompute::kNone) &&
                            (min_none_need_ == 0 || c.memory_lower_bytes < min_none_need_);
      const bool for_all = res_.fitting == 0 && (min_need_ == 0 || c.memory_lower_bytes < min_need_);
      if (for_none || for_all) NoteUnfit(Compose(c));
    }
  }

  enum class Visited { kSkipped, kEstimated, kPruned, kPrunedForGood };

  // One candidate of Evaluate: skipped by memory, pruned by the step bound, or estimated and
  // kept if it fits. kPrunedForGood: pruned with a bound below both the top's and the best
  // layout without recomputation's, so every later (slower) bound is pruned too.
  Visited Visit(uint32_t i, std::vector<uint32_t>& unfit) {
    const Candidate& c = candidates_[i];
    const double limit = res_.memory_limit_bytes;
    if (r_.prune && c.memory_lower_bytes > limit) {
      ++res_.skipped_memory;
      unfit.push_back(i);
      return Visited::kSkipped;
    }
    const size_t top = static_cast<size_t>(std::max(1, r_.top));
    if (r_.prune && r_.objective == Objective::kThroughput && top_tps_.size() >= top) {
      const double tokens = static_cast<double>(r_.training.global_batch) * static_cast<double>(r_.training.seq);
      const double gpus = static_cast<double>(r_.cluster.gpus);
      // Ranking resolves throughput to 0.001 tokens/s (ranking.cc); 0.002 keeps clear of it.
      const double upper_tps = c.step_lower_s > 0 ? tokens / (c.step_lower_s * gpus) : 1e300;
      const bool below_top = upper_tps + 0.002 < *top_tps_.begin();
      const bool below_best_none = best_none_ && upper_tps + 0.002 < best_none_->tokens_per_s_per_gpu;
      if (below_top && (below_best_none || c.recompute != static_cast<uint8_t>(Recompute::kNone))) {
        ++res_.pruned_by_bound;
        return below_best_none ? Visited::kPrunedForGood : Visited::kPruned;
      }
    }
    Estimate e = Compose(c);
    if (e.peak_memory_bytes > limit) {
      NoteUnfit(e);
      return Visited::kEstimated;
    }
    ++res_.fitting;
    top_tps_.insert(e.tokens_per_s_per_gpu);
    if (top_tps_.size() > top) top_tps_.erase(top_tps_.begin());
    if (e.layout.recompute == Recompute::kNone &&
        (!best_none_ || RanksBefore(e, *best_none_, Objective::kThroughput, domain_)))
      best_none_ = e;
    fits_.push_back(std::move(e));
    return Visited::kEstimated;
  }

  // The global batches nearest to the requested one that some reachable dp*mbs divides.
  std::string NearestBatches() const {
    const int64_t gb = r_.training.global_batch;
    int64_t below = 0, above = 0;
    for (int64_t unit : batch_dps_) {
      const int64_t lo = gb / unit * unit, hi = lo + unit;
      if (lo > 0 && lo > below) below = lo;
      if (above == 0 || hi < above) above = hi;
    }
    if (below > 0) return fmt::format("{}, {}", below, above);
    return fmt::format("{}", above);
  }

  std::string NothingFits() const {
    const std::string what = fmt::format("{} on {} x {}", m_.name, r_.cluster.gpus, g_.name);
    if (res_.estimated > 0)
      return fmt::format(
          "no layout of {} fits: {} valid layouts estimated; the smallest needs {:.1f} GB per GPU, over "
          "the {:.1f} GB limit ({:.0f}% of {:.1f} GB; `headroom` {})",
          what, res_.estimated, min_need_ / 1e9, res_.memory_limit_bytes / 1e9, 100 * (1 - r_.headroom),
          g_.hbm_bytes / 1e9, r_.headroom);
    if (!batch_dps_.empty()) {
      std::vector<int64_t> units(batch_dps_.begin(), batch_dps_.end());
      return fmt::format(
          "no layout of {} is valid: global batch {} is not divisible by dp*mbs for any dp the other "
          "rules allow (dp*mbs in {{{}}}); nearest valid global batches: {}",
          what, r_.training.global_batch, List(units), NearestBatches());
    }
    // The rule that excluded the most branches, with its first message.
    const std::pair<const std::string, Exclusion>* top = nullptr;
    for (const auto& x : excluded_)
      if (!top || x.second.count > top->second.count) top = &x;
    if (!top) return fmt::format("no layout of {} is valid: nothing to search", what);
    return fmt::format("no layout of {} is valid: every candidate breaks a rule, most often {} ({} {}): {}", what,
                       top->first, top->second.count, top->second.count == 1 ? "time" : "times", top->second.example);
  }

  // Where a rule or a search policy decided, for the report.
  void Notes() {
    auto add = [&](const std::string& rule, const std::string& note) { res_.rules.push_back({rule, note}); };
    for (auto [pin, dim] : {std::pair{&r_.tp, "tp"},
                            {&r_.pp, "pp"},
                            {&r_.vp, "vp"},
                            {&r_.cp, "cp"},
                            {&r_.ep, "ep"},
                            {&r_.etp, "etp"},
                            {&r_.zero, "zero"},
                            {&r_.mbs, "mbs"}})
      if (*pin) add("pinned", fmt::format("{} pinned to {}", dim, **pin));
    // Rules in table order.
    for (const LayoutConstraint& rule : LayoutConstraints()) {
      auto it = excluded_.find(rule.id);
      if (it == excluded_.end()) continue;
      const Exclusion& x = it->second;
      std::string shown;
      for (const auto& [value, name] : x.values) shown += (shown.empty() ? "" : ", ") + name;
      add(rule.id, fmt::format("{} {} excluded ({} branches), e.g.: {}", x.dim,
                               x.values.size() == 1 ? shown : "in {" + shown + "}", x.count, x.example));
    }
    add("rank-order",
        "ranks are ordered tp (fastest), cp, dp, pp as in Megatron-Core: TP stays inside a "
        "node, PP and DP groups are the outer dimensions and span nodes");
    if (!r_.cp && r_.training.seq < kContextParallelMinSeq)
      add("cp-long-sequences", fmt::format("cp not considered: sequence {} < {} tokens (context parallelism "
                                           "only for long sequences; pin `cp` to force it)",
                                           r_.training.seq, kContextParallelMinSeq));
    if (m_.is_moe()) {
      const Layout& w = res_.ranked.front().layout;
      add("ep-prefers-node",
          fmt::format("EP groups inside one NVLink domain rank first on equal throughput; the winner's "
                      "ep*etp = {}*{} = {} GPUs is {} the {}-GPU domain",
                      w.ep, w.expert_tp(), w.ep * w.expert_tp(), ExpertGroupInDomain(w, domain_) ? "inside" : "beyond",
                      domain_));
    }
    if (!r_.switches.schedule)
      add("schedules",
          "1f1b and zb-h1 searched for vp 1, interleaved for vp > 1 (gpipe only pinned: "
          "1F1B's bubble with every micro-batch in flight)");
    if (r_.switches.pp_layout.empty())
      add("pipeline-splits",
          "even splits; where pp*vp does not divide the layers, Megatron's account-for "
          "splits (embedding and/or loss counted as a layer), else with vp 1 first/last "
          "stage layer counts (layout/pipeline_split.h)");
    if (res_.skipped_memory > 0)
      add("memory", fmt::format("{} layouts skipped: even their lower-bound peak memory exceeds {:.1f} GB",
                                res_.skipped_memory, res_.memory_limit_bytes / 1e9));
    if (res_.pruned_by_bound > 0)
      add("bound", fmt::format("{} layouts not simulated: m x the busiest rank's passes already gives a step "
                               "slower than #{} (they cannot enter the ranking)",
                               res_.pruned_by_bound, std::max(1, r_.top)));
  }

  struct Exclusion {
    int64_t count = 0;
    std::string dim;                    // the dimension being fixed when the rule first fired
    std::map<int, std::string> values;  // its values the rule excluded, with the names printed
    std::string example;                // the first message
  };

  const PlanRequest& r_;
  const ModelSpec& m_;
  const GpuSpec& g_;
  const int domain_;
  std::vector<const LayoutConstraint*> level_rules_[std::size(kLevels)];
  Training t_;
  Layout l_;
  PlanResult res_;
  std::vector<Estimate> fits_;
  std::optional<Estimate> best_none_;
  std::multiset<double> top_tps_;  // the best `top` throughputs found so far
  double min_none_need_ = 0, min_need_ = 0;
  std::map<std::string, Exclusion> excluded_;
  std::set<int64_t> batch_dps_;  // dp*mbs of branches where only the batch rule was left to fail
  std::vector<Branch> branches_;
  uint32_t branch_ = 0;                   // the current one's index
  std::deque<Candidate> candidates_;      // blocks, never moved as they grow
  StepCostCache costs_;                   // the candidates' stage costs, shared where their layouts share them
  std::vector<std::vector<int>> splits_;  // the pipeline splits searched, one entry per (pp, vp, split) visited
  uint32_t split_ = 0;                    // the current one's index
  ScheduleTimeCache schedule_cache_;      // ZeRO stages and switches share a schedule's pipeline time
};

}  // namespace

PlanResult Plan(const PlanRequest& request) { return Search(request).Run(); }

}  // namespace paratune
