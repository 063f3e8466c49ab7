#include "plan/planner.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "layout/rules.h"
#include "plan/explain.h"
#include "plan/ranking.h"
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
std::string List(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v.size() > 6 && i == 3) {
      s += ", ..., " + std::to_string(v.back());
      break;
    }
    s += (i ? ", " : "") + std::to_string(v[i]);
  }
  return s;
}

// Values of one dimension: the pin alone, or every candidate up to the bound.
std::vector<int> Choices(const std::optional<int>& pin, std::vector<int> all, int bound) {
  if (pin) return {*pin};
  if (bound > 0) all.erase(std::remove_if(all.begin(), all.end(), [&](int x) { return x > bound; }), all.end());
  return all;
}

void CheckPin(const std::optional<int>& v, const char* flag, int lo, int hi = 1 << 30) {
  if (v && (*v < lo || *v > hi))
    throw InputError(fmt::format("{} must be between {} and {}, got {}", flag, lo, hi, *v));
}

class Search {
 public:
  explicit Search(const PlanRequest& r) : r_(r), m_(r.model), g_(r.cluster.gpu) {}

  PlanResult Run() {
    Validate();
    res_.memory_limit_bytes = (1 - r_.headroom) * g_.hbm_bytes;
    const int64_t world = r_.cluster.gpus;
    std::vector<Precision> precisions;
    if (r_.any_precision) {
      for (Precision p : {Precision::kBf16, Precision::kFp8, Precision::kFp4})
        if (g_.peak_flops(p) > 0) precisions.push_back(p);
    } else {
      precisions.push_back(r_.training.precision);
    }

    for (Precision prec : precisions)
      for (int tp : TensorParallel(world))
        for (int pp : Choices(r_.pp, Filter(Divisors(world / tp), [&](int p) { return m_.layers % p == 0; },
                                            "pp-divides-layers", "pp"), r_.max_pp))
          for (int vp : VirtualStages(pp))
            for (int cp : ContextParallel(world, tp, pp)) {
              if (world % (static_cast<int64_t>(tp) * pp * cp) != 0) continue;
              const int dp = static_cast<int>(world / (static_cast<int64_t>(tp) * pp * cp));
              if (r_.training.global_batch % dp != 0) {
                Exclude("batch-divisible", "dp", dp);
                continue;
              }
              for (auto [ep, etp] : ExpertChoices(tp, cp, dp))
                for (int zero : Choices(r_.zero, {0, 1, 2, 3}, 0))
                  for (Recompute rc : RecomputeChoices())
                    RunMicroBatches(prec, tp, pp, vp, cp, dp, ep, etp, zero, rc);
            }

    if (res_.fitting == 0) throw InputError(NothingFits());
    std::sort(fits_.begin(), fits_.end(), [&](const Estimate& a, const Estimate& b) {
      return RanksBefore(a, b, r_.objective, g_.nvlink_domain);
    });
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
      throw InputError(fmt::format("--headroom must be in [0, 1), got {}", r_.headroom));
    if (r_.top < 1) throw InputError(fmt::format("--top must be at least 1, got {}", r_.top));
    CheckPin(r_.tp, "--tp", 1);
    CheckPin(r_.pp, "--pp", 1);
    CheckPin(r_.vp, "--vp", 1);
    CheckPin(r_.cp, "--cp", 1);
    CheckPin(r_.ep, "--ep", 1);
    CheckPin(r_.etp, "--etp", 1);
    CheckPin(r_.zero, "--zero", 0, 3);
    CheckPin(r_.mbs, "--mbs", 1);
    for (auto [v, flag] : {std::pair{r_.max_tp, "--max-tp"}, {r_.max_pp, "--max-pp"}, {r_.max_vp, "--max-vp"},
                           {r_.max_cp, "--max-cp"}, {r_.max_ep, "--max-ep"}, {r_.max_mbs, "--max-mbs"}})
      if (v < 0) throw InputError(fmt::format("{} must not be negative, got {}", flag, v));
    if (r_.cluster.gpus <= 0) throw InputError("--gpus/--nodes must be positive");
    if (r_.training.global_batch <= 0 || r_.training.seq <= 0)
      throw InputError("--seq and --global-batch must be positive");
    if (!r_.any_precision && g_.peak_flops(r_.training.precision) <= 0)
      throw InputError(fmt::format("--precision {}: {} has no such tensor cores",
                                   PrecisionName(r_.training.precision), g_.name));
  }

  template <class Pred>
  std::vector<int> Filter(std::vector<int> v, Pred ok, const char* rule, const char* dim) {
    std::vector<int> out;
    for (int x : v) (ok(x) ? out.push_back(x) : Exclude(rule, dim, x));
    return out;
  }

  void Exclude(const std::string& rule, const std::string& dim, int value) {
    auto& s = excluded_[{rule, dim}];
    if (std::find(s.begin(), s.end(), value) == s.end()) s.push_back(value);
  }

  // TP: divisors of the world inside the NVLink domain (rule tp-in-nvlink-domain; Narayanan et
  // al. 2021 Sec. 3.2: tensor parallelism within a multi-GPU server), dividing the heads, KV
  // heads and the MLP width (Megatron-Core ColumnParallelLinear splits columns evenly).
  std::vector<int> TensorParallel(int64_t world) {
    std::vector<int> all = Divisors(world);
    if (r_.tp) return {*r_.tp};
    std::vector<int> v;
    for (int t : all) {
      if (t > g_.nvlink_domain && !r_.options.rules.allow_cross_domain_tp) {
        Exclude("tp-in-nvlink-domain", "tp", t);
      } else if (m_.heads % t != 0) {
        Exclude("tp-divides-heads", "tp", t);
      } else if (m_.attention == AttentionKind::kGqa && m_.kv_heads % t != 0) {
        Exclude("tp-divides-kv-heads", "tp", t);
      } else if (m_.dense_layers() > 0 && m_.ffn_hidden % t != 0) {
        Exclude("tp-divides-ffn", "tp", t);
      } else if (r_.max_tp > 0 && t > r_.max_tp) {
        Exclude("bound", "tp", t);
      } else {
        v.push_back(t);
      }
    }
    return v;
  }

  std::vector<int> VirtualStages(int pp) {
    if (r_.vp) return {*r_.vp};
    if (pp == 1) return {1};  // interleaving needs pp > 1 (rule vp-needs-pp)
    return Choices(std::nullopt, Divisors(m_.layers / pp), r_.max_vp);
  }

  std::vector<int> ContextParallel(int64_t world, int tp, int pp) {
    if (r_.cp) return {*r_.cp};
    if (r_.training.seq < kContextParallelMinSeq) return {1};
    std::vector<int> v;
    for (int c : Divisors(world / (static_cast<int64_t>(tp) * pp))) {
      if (r_.training.seq % (2LL * c) != 0) {
        Exclude("cp-divides-seq", "cp", c);
      } else if ((r_.training.seq / c) % tp != 0) {
        Exclude("tp-divides-seq", "cp", c);
      } else if (r_.max_cp == 0 || c <= r_.max_cp) {
        v.push_back(c);
      }
    }
    return v;
  }

  // EP divides the experts and ep*etp divides tp*cp*dp (rule ep-fits-world); expert TP stays
  // inside the NVLink domain like TP and divides the expert width.
  std::vector<std::pair<int, int>> ExpertChoices(int tp, int cp, int dp) {
    if (!m_.is_moe()) return {{r_.ep.value_or(1), r_.etp.value_or(0)}};
    const int64_t dense_group = static_cast<int64_t>(tp) * cp * dp;
    std::vector<std::pair<int, int>> v;
    const std::vector<int> eps = Choices(r_.ep, Divisors(m_.experts), r_.max_ep);
    std::vector<int> etps;
    if (r_.etp) {
      etps = {*r_.etp};
    } else {
      for (int et : Divisors(g_.nvlink_domain))
        if (m_.moe_ffn_hidden % et == 0) etps.push_back(et);
    }
    for (int ep : eps)
      for (int et : etps) {
        if (dense_group % (static_cast<int64_t>(ep) * et) != 0) {
          Exclude("ep-fits-world", "ep*etp", ep * et);
          continue;
        }
        v.push_back({ep, et});
      }
    return v;
  }

  std::vector<Recompute> RecomputeChoices() const {
    if (r_.recompute) return {*r_.recompute};
    return {Recompute::kNone, Recompute::kSelective, Recompute::kFull};
  }

  // Micro-batch sizes: powers of two dividing the per-DP batch (or the pin), ascending. Memory
  // grows with the micro-batch (activations scale with it; in-flight micro-batches times it
  // never shrinks), so once one does not fit, the larger ones are skipped.
  void RunMicroBatches(Precision prec, int tp, int pp, int vp, int cp, int dp, int ep, int etp, int zero,
                       Recompute rc) {
    const int64_t per_dp = r_.training.global_batch / dp;
    std::vector<int> mbs;
    if (r_.mbs) {
      mbs = {*r_.mbs};
    } else {
      for (int64_t b = 1; b <= per_dp && (r_.max_mbs == 0 || b <= r_.max_mbs); b *= 2)
        if (per_dp % b == 0) mbs.push_back(static_cast<int>(b));
    }
    for (size_t i = 0; i < mbs.size(); ++i) {
      Layout l = r_.switches;
      l.tp = tp;
      l.pp = pp;
      l.vp = vp;
      l.cp = cp;
      l.ep = ep;
      l.etp = etp;
      l.zero = zero;
      l.recompute = rc;
      l.mbs = mbs[i];
      Training t = r_.training;
      t.precision = prec;
      ++res_.candidates;
      // Every candidate passes the project's rules; a violation here is counted and skipped.
      const std::vector<RuleViolation> v = CheckLayout(m_, r_.cluster, t, l, r_.options.rules);
      if (!v.empty()) {
        ++res_.rejected_by_rules;
        for (const RuleViolation& x : v) ++rule_rejections_[x.rule];
        continue;
      }
      Estimate e = EstimateCheckedStep(m_, r_.cluster, t, l, r_.options);
      ++res_.estimated;
      const bool fits = e.peak_memory_bytes <= res_.memory_limit_bytes;
      if (!fits) {
        if (rc == Recompute::kNone && (min_none_need_ == 0 || e.peak_memory_bytes < min_none_need_))
          min_none_need_ = e.peak_memory_bytes;
        if (min_need_ == 0 || e.peak_memory_bytes < min_need_) min_need_ = e.peak_memory_bytes;
        res_.skipped_memory += static_cast<int64_t>(mbs.size() - i - 1);
        break;
      }
      ++res_.fitting;
      if (rc == Recompute::kNone &&
          (!best_none_ || RanksBefore(e, *best_none_, Objective::kThroughput, g_.nvlink_domain)))
        best_none_ = e;
      fits_.push_back(std::move(e));
    }
  }

  std::string NothingFits() const {
    std::string why = fmt::format("no layout of {} on {} x {} fits: {} candidates, {} broke a rule",
                                  m_.name, r_.cluster.gpus, g_.name, res_.candidates, res_.rejected_by_rules);
    if (!rule_rejections_.empty()) {
      std::vector<std::pair<int64_t, std::string>> v;
      for (const auto& [rule, n] : rule_rejections_) v.push_back({-n, rule});
      std::sort(v.begin(), v.end());
      why += fmt::format(" (most often {})", v[0].second);
    }
    if (res_.estimated > 0)
      why += fmt::format(", {} estimated; the smallest needs {:.1f} GB per GPU, over the {:.1f} GB limit "
                         "({:.0f}% of {:.0f} GB; --headroom {})",
                         res_.estimated, min_need_ / 1e9, res_.memory_limit_bytes / 1e9,
                         100 * (1 - r_.headroom), g_.hbm_bytes / 1e9, r_.headroom);
    return why;
  }

  // Where a rule of the craft decided, for the report.
  void Notes() {
    auto values = [&](const char* rule, const char* dim) {
      auto it = excluded_.find({rule, dim});
      if (it == excluded_.end()) return std::vector<int>{};
      std::vector<int> v = it->second;
      std::sort(v.begin(), v.end());
      return v;
    };
    auto add = [&](const std::string& rule, const std::string& note) { res_.rules.push_back({rule, note}); };
    if (r_.tp) {
      add("pinned", fmt::format("tp pinned to {}", *r_.tp));
    } else {
      if (auto v = values("tp-in-nvlink-domain", "tp"); !v.empty())
        add("tp-in-nvlink-domain", fmt::format("tp <= {}: the NVLink domain of {} is {} GPUs, so tp {} was "
                                               "not considered", g_.nvlink_domain, g_.name, g_.nvlink_domain,
                                               v.size() > 4 ? fmt::format(">= {}", v[0]) : "in {" + List(v) + "}"));
      if (auto v = values("tp-divides-heads", "tp"); !v.empty())
        add("tp-divides-heads", fmt::format("tp in {{{}}} excluded: {} attention heads", List(v), m_.heads));
      if (auto v = values("tp-divides-kv-heads", "tp"); !v.empty())
        add("tp-divides-kv-heads", fmt::format("tp in {{{}}} excluded: {} KV heads", List(v), m_.kv_heads));
      if (auto v = values("tp-divides-ffn", "tp"); !v.empty())
        add("tp-divides-ffn", fmt::format("tp in {{{}}} excluded: MLP width {}", List(v), m_.ffn_hidden));
    }
    if (auto v = values("pp-divides-layers", "pp"); !v.empty())
      add("pp-divides-layers", fmt::format("pp in {{{}}} excluded: {} layers", List(v), m_.layers));
    add("rank-order", "ranks are ordered tp (fastest), cp, dp, pp as in Megatron-Core: TP stays inside a "
                      "node, PP and DP groups are the outer dimensions and span nodes");
    if (!r_.cp && r_.training.seq < kContextParallelMinSeq)
      add("cp-long-sequences", fmt::format("cp not considered: sequence {} < {} tokens (context parallelism "
                                           "only for long sequences; pin --cp to force it)",
                                           r_.training.seq, kContextParallelMinSeq));
    if (auto v = values("batch-divisible", "dp"); !v.empty())
      add("batch-divisible", fmt::format("dp in {{{}}} excluded: global batch {} not divisible", List(v),
                                         r_.training.global_batch));
    if (m_.is_moe()) {
      const Layout& w = res_.ranked.front().layout;
      add("ep-prefers-node",
          fmt::format("EP groups inside one NVLink domain rank first on equal throughput; the winner's "
                      "ep*etp = {}*{} = {} GPUs is {} the {}-GPU domain",
                      w.ep, w.expert_tp(), w.ep * w.expert_tp(),
                      ExpertGroupInDomain(w, g_.nvlink_domain) ? "inside" : "beyond", g_.nvlink_domain));
    }
    for (const auto& [rule, n] : rule_rejections_)
      add(rule, fmt::format("{} candidates rejected by CheckLayout", n));
    if (res_.skipped_memory > 0)
      add("memory", fmt::format("{} larger micro-batches skipped once a smaller one did not fit in {:.1f} GB",
                                res_.skipped_memory, res_.memory_limit_bytes / 1e9));
  }

  const PlanRequest& r_;
  const ModelSpec& m_;
  const GpuSpec& g_;
  PlanResult res_;
  std::vector<Estimate> fits_;
  std::optional<Estimate> best_none_;
  double min_none_need_ = 0, min_need_ = 0;
  std::map<std::pair<std::string, std::string>, std::vector<int>> excluded_;
  std::map<std::string, int64_t> rule_rejections_;
};

}  // namespace

PlanResult Plan(const PlanRequest& request) { return Search(request).Run(); }

}  // namespace paratune
