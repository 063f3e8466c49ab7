// recompute_unneeded (issue 11 rule 10): recomputation is on while the memory headroom allows
// less of it. For the planned layout with recompute full, the cost model estimates selective and
// none; with selective, none. A lesser mode is proposed when it passes the layout rules and fits
// with the planner's headroom (docs/planner.md). Recomputing repeats the forward pass of what is
// recomputed: full recomputation costs about a third more compute, selective recomputation only
// the attention core (Korthikanti et al. 2022, arXiv 2205.05198 Sec. 5, Table 4). The loss is
// 1 - tokens/s(planned) / tokens/s(best lesser mode).
#include <fmt/format.h>

#include "diagnose/rules.h"
#include "diagnose/what_if.h"

namespace paratune {
namespace {

class RecomputeUnneeded : public Rule {
 public:
  const char* Name() const override { return "recompute_unneeded"; }
  const char* Summary() const override {
    return "activation recomputation is on although the cost model finds that less of it fits in memory";
  }
  void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const override {
    if (!in.plan || in.plan->layout.recompute == Recompute::kNone) return;
    const PlannedRun& p = *in.plan;
    const Estimate& now = p.estimate;
    std::optional<Estimate> best;
    for (Recompute r : {Recompute::kNone, Recompute::kSelective}) {
      if (static_cast<int>(r) >= static_cast<int>(now.layout.recompute)) break;
      Layout l = now.layout;
      l.recompute = r;
      l.dp = 0;
      std::optional<Estimate> e = EstimateVariant(p, l, p.training);
      if (e && FitsWithHeadroom(*e) && (!best || e->tokens_per_s > best->tokens_per_s)) best = std::move(e);
    }
    if (!best || best->tokens_per_s <= now.tokens_per_s) return;
    const double gain = LossAgainst(now, *best);
    const double limit = (1 - ProposalHeadroom()) * best->capacity_bytes;
    Finding f;
    f.rule = Name();
    f.severity = SeverityOfPredictedGain(gain);
    f.loss_fraction = gain;
    f.title = fmt::format("recompute {} is not needed: recompute {} fits and is {:.1f}% faster",
                          RecomputeName(now.layout.recompute), RecomputeName(best->layout.recompute), 100 * gain);
    f.message = fmt::format(
        "The planned layout recomputes {:.3f} s of its {:.3f} s step (recompute {}, peak {:.1f} GB). With recompute {} "
        "the cost model predicts a {:.3f} s step and a peak of {:.1f} GB, within the {:.1f} GB that leaves {:.0f}% of "
        "the {:.1f} GB free.",
        now.time.recompute_s, now.step_time_s, RecomputeName(now.layout.recompute), now.peak_memory_bytes / 1e9,
        RecomputeName(best->layout.recompute), best->step_time_s, best->peak_memory_bytes / 1e9, limit / 1e9,
        100 * ProposalHeadroom(), best->capacity_bytes / 1e9);
    const std::string mg = MegatronRecomputeFlags(best->layout.recompute);
    f.fix =
        fmt::format("--recompute {} (Megatron-LM: {})", RecomputeName(best->layout.recompute),
                    mg.empty() ? "drop --recompute-granularity, --recompute-method and --recompute-num-layers" : mg);
    f.evidence = {{"recomputation time", now.time.recompute_s, "s", "cost model"},
                  {"planned step time", now.step_time_s, "s", "cost model"},
                  {"planned peak memory", now.peak_memory_bytes, "B", "cost model"},
                  {"proposed step time", best->step_time_s, "s", "cost model"},
                  {"proposed peak memory", best->peak_memory_bytes, "B", "cost model"},
                  {"memory limit", limit, "B", "cost model"},
                  {"predicted gain", gain, "fraction", "cost model"}};
    out->push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeRecomputeUnneededRule() { return std::make_unique<RecomputeUnneeded>(); }

}  // namespace paratune
