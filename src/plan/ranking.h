// The order of planned layouts: the objective first, then a fixed tie-break, so that a search
// always lists the same layouts in the same order (docs/planner.md, "Ranking").
#pragma once

#include "step/estimate.h"
#include "plan/plan_request.h"

namespace paratune {

// True when `a` ranks before `b`. Throughput objective: higher tokens/s per GPU (to 0.001),
// then the expert-parallel group inside one NVLink domain, then lower peak memory (to 1 MB),
// then the smaller layout tuple (tp, pp, vp, cp, ep, etp, zero, recompute, mbs, precision).
// Memory objective: lower peak memory (to 1 MB) first, then the same order.
bool RanksBefore(const Estimate& a, const Estimate& b, Objective objective, int nvlink_domain);

// Whether the expert group (ep * etp consecutive ranks) stays inside one NVLink domain.
bool ExpertGroupInDomain(const Layout& l, int nvlink_domain);

}  // namespace paratune
