// tp_too_large (issue 11 rule 3): the cost model shows a layout with less tensor parallelism that
// is faster for this model on the same GPUs and global batch. Candidates: every tp' = tp/2,
// tp/4, ..., 1 with the pipeline depth kept or deepened (pp' = pp, 2pp, ... while tp'*pp' <=
// tp*pp: the GPUs freed from TP go to PP or DP) and the same or more recomputation (the less
// TP, the more activation memory per GPU; Korthikanti et al. 2022, arXiv 2205.05198 Sec. 4), all
// other settings as planned. A candidate must pass the layout rules and fit with the planner's
// headroom. The gain is 1 - tokens/s(planned) / tokens/s(best candidate).
// Why it happens: TP all-reduces (or all-gathers/reduce-scatters with SP) four times per layer
// per micro-batch and shrinks every GEMM by tp (Narayanan et al. 2021, arXiv 2104.04473 Sec. 3.2:
// "tensor model parallelism ... should generally be used up to degree g" when the model needs it).
#include <fmt/format.h>

#include "diagnose/rules.h"
#include "diagnose/what_if.h"

namespace paratune {
namespace {

// Recomputation modes from the planned one upwards (none < selective < full).
std::vector<Recompute> SameOrMore(Recompute r) {
  std::vector<Recompute> out;
  for (Recompute m : {Recompute::kNone, Recompute::kSelective, Recompute::kFull})
    if (static_cast<int>(m) >= static_cast<int>(r)) out.push_back(m);
  return out;
}

class TpTooLarge : public Rule {
 public:
  const char* Name() const override { return "tp_too_large"; }
  const char* Summary() const override {
    return "the cost model finds a layout with less tensor parallelism that is faster on the same GPUs";
  }
  void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const override {
    if (!in.plan || in.plan->layout.tp <= 1) return;
    const PlannedRun& p = *in.plan;
    const Estimate& now = p.estimate;
    const int mp = now.layout.tp * now.layout.pp;
    std::optional<Estimate> best;
    int tried = 0;
    for (int tp = now.layout.tp / 2; tp >= 1; tp /= 2) {
      for (int pp = now.layout.pp; tp * pp <= mp; pp *= 2) {
        for (Recompute r : SameOrMore(now.layout.recompute)) {
          Layout l = now.layout;
          l.tp = tp;
          l.pp = pp;
          l.dp = 0;  // derived again
          l.recompute = r;
          if (l.etp == now.layout.tp) l.etp = 0;  // expert TP followed TP
          if (pp != now.layout.pp) l.pp_layout.clear();
          std::optional<Estimate> e = EstimateVariant(p, l, p.training);
          ++tried;
          if (!e || !FitsWithHeadroom(*e)) continue;
          if (!best || e->tokens_per_s > best->tokens_per_s) best = std::move(e);
          break;  // more recomputation at this tp/pp only costs time
        }
      }
    }
    if (!best || best->tokens_per_s <= now.tokens_per_s) return;
    const double gain = LossAgainst(now, *best);
    Finding f;
    f.rule = Name();
    f.severity = SeverityOfPredictedGain(gain);
    f.loss_fraction = gain;
    f.title = fmt::format("tensor parallelism {} is more than this model needs: tp {} is {:.1f}% faster", now.layout.tp,
                          best->layout.tp, 100 * gain);
    f.message = fmt::format(
        "The cost model predicts {:.0f} tokens/s per GPU for the planned tp {} pp {} dp {} (step {:.3f} s, exposed TP "
        "communication {:.3f} s) and {:.0f} tokens/s per GPU for tp {} pp {} dp {} recompute {} (step {:.3f} s, "
        "exposed TP {:.3f} s, peak memory {:.1f} GB of {:.1f} GB), best of {} layouts with smaller tp on the same {} "
        "GPUs and global batch {}.",
        now.tokens_per_s_per_gpu, now.layout.tp, now.layout.pp, now.layout.dp, now.step_time_s, now.time.tp_s,
        best->tokens_per_s_per_gpu, best->layout.tp, best->layout.pp, best->layout.dp,
        RecomputeName(best->layout.recompute), best->step_time_s, best->time.tp_s, best->peak_memory_bytes / 1e9,
        best->capacity_bytes / 1e9, tried, now.gpus, now.training.global_batch);
    const std::string rc = MegatronRecomputeFlags(best->layout.recompute);
    f.fix = fmt::format("use {} (Megatron-LM --tensor-model-parallel-size {} --pipeline-model-parallel-size {}{}{})",
                        VariantFlags(*best, now), best->layout.tp, best->layout.pp, rc.empty() ? "" : " ", rc);
    f.evidence = {{"planned step time", now.step_time_s, "s", "cost model"},
                  {"planned exposed TP communication", now.time.tp_s, "s", "cost model"},
                  {"proposed step time", best->step_time_s, "s", "cost model"},
                  {"proposed tp", double(best->layout.tp), "", "cost model"},
                  {"proposed peak memory", best->peak_memory_bytes, "B", "cost model"},
                  {"predicted gain", gain, "fraction", "cost model"}};
    out->push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeTpTooLargeRule() { return std::make_unique<TpTooLarge>(); }

}  // namespace paratune
