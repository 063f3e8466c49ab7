#include "diagnose/what_if.h"

#include <fmt/format.h>

#include "plan/plan_request.h"
#include "util/error.h"

namespace paratune {

double ProposalHeadroom() { return PlanRequest{}.headroom; }

std::optional<Estimate> EstimateVariant(const PlannedRun& plan, const Layout& layout, const Training& training) {
  try {
    return EstimateStep(plan.model, plan.cluster, training, layout, plan.options);
  } catch (const InputError&) {
    return std::nullopt;  // a layout rule refuses the variant
  }
}

std::string MegatronRecomputeFlags(Recompute r) {
  switch (r) {
    case Recompute::kNone:
      return "";
    case Recompute::kSelective:
      return "--recompute-granularity selective";
    case Recompute::kFull:
      return "--recompute-granularity full --recompute-method uniform --recompute-num-layers 1";
  }
  return "";
}

bool FitsWithHeadroom(const Estimate& e) {
  return e.capacity_bytes > 0 && e.peak_memory_bytes <= (1 - ProposalHeadroom()) * e.capacity_bytes;
}

double LossAgainst(const Estimate& current, const Estimate& better) {
  if (!(better.tokens_per_s > 0) || !(current.tokens_per_s > 0)) return 0;
  return 1 - current.tokens_per_s / better.tokens_per_s;
}

std::string VariantFlags(const Estimate& e, const Estimate& base) {
  const Layout& l = e.layout;
  const Layout& b = base.layout;
  std::string s = fmt::format("--tp {} --pp {}", l.tp, l.pp);
  if (l.vp != b.vp) s += fmt::format(" --vp {}", l.vp);
  if (l.pipeline_schedule() != b.pipeline_schedule())
    s += fmt::format(" --schedule {}", ScheduleName(l.pipeline_schedule()));
  if (l.cp != b.cp) s += fmt::format(" --cp {}", l.cp);
  if (l.ep != b.ep) s += fmt::format(" --ep {}", l.ep);
  if (l.recompute != b.recompute) s += fmt::format(" --recompute {}", RecomputeName(l.recompute));
  if (l.mbs != b.mbs) s += fmt::format(" --mbs {}", l.mbs);
  if (e.training.global_batch != base.training.global_batch)
    s += fmt::format(" --global-batch {}", e.training.global_batch);
  s += fmt::format(" (dp {})", l.dp);
  return s;
}

}  // namespace paratune
