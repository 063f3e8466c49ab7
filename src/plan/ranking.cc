#include "plan/ranking.h"

#include <cmath>
#include <tuple>

namespace paratune {
namespace {

// Quantised keys make near-equal floating-point results compare equal, so the tie-break, not
// rounding noise, decides between them.
long long ThroughputKey(const Estimate& e) { return std::llround(e.tokens_per_s_per_gpu * 1000); }
long long MemoryKey(const Estimate& e) { return std::llround(e.peak_memory_bytes / 1e6); }

auto LayoutTuple(const Estimate& e) {
  const Layout& l = e.layout;
  return std::make_tuple(l.tp, l.pp, l.vp, l.cp, l.ep, l.expert_tp(), l.zero, static_cast<int>(l.recompute), l.mbs,
                         static_cast<int>(e.training.precision), static_cast<int>(l.pipeline_schedule()), l.pp_layout);
}

}  // namespace

bool ExpertGroupInDomain(const Layout& l, int nvlink_domain) {
  return static_cast<long long>(l.ep) * l.expert_tp() <= nvlink_domain;
}

bool RanksBefore(const Estimate& a, const Estimate& b, Objective objective, int domain) {
  // Negated where larger is better, so that every component sorts ascending.
  const auto key = [&](const Estimate& e) {
    const long long primary = objective == Objective::kThroughput ? -ThroughputKey(e) : MemoryKey(e);
    const long long secondary = objective == Objective::kThroughput ? 0 : -ThroughputKey(e);
    const int ep_outside = ExpertGroupInDomain(e.layout, domain) ? 0 : 1;
    const long long memory = MemoryKey(e);
    return std::make_tuple(primary, secondary, ep_outside, memory, LayoutTuple(e));
  };
  return key(a) < key(b);
}

}  // namespace paratune
