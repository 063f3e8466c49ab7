// Plan: the search of `paratune plan`. Enumerates every layout the rules allow (tp, pp, vp, the
// pipeline split and schedule, cp, ep, etp, ZeRO stage, recomputation, micro-batch, precision),
// applying each constraint of the table
// (layout/constraints.h) as soon as the dimensions it reads are fixed, estimates each valid layout,
// keeps those that fit in memory with the requested headroom, ranks them (plan/ranking.h) and
// says where a rule of the craft decided. docs/planner.md describes the search and its pruning.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "step/estimate.h"
#include "plan/plan_request.h"

namespace paratune {

// One place where a rule shaped the search, e.g. "tp-in-nvlink-domain": "tp <= 8 ...".
struct RuleNote {
  std::string rule;
  std::string note;
};

struct PlanResult {
  std::vector<Estimate> ranked;          // best first, at most request.top
  int64_t candidates = 0;                // whole layouts that passed every rule
  int64_t rejected_by_rules = 0;         // branches of the enumeration a rule cut (partial or whole layouts)
  int64_t estimated = 0;                 // layouts estimated (simulated)
  int64_t skipped_memory = 0;            // layouts whose memory lower bound exceeds the limit
  int64_t pruned_by_bound = 0;           // layouts whose step-time lower bound keeps them out of the top
  int64_t fitting = 0;                   // estimates that fit the memory limit
  double memory_limit_bytes = 0;         // (1 - headroom) * HBM
  std::vector<RuleNote> rules;           // where a rule decided, in search order
  std::vector<std::string> explanation;  // why #1 beats #2, with numbers
};

// Throws InputError when a pin or bound is invalid or when no layout is valid and fits.
PlanResult Plan(const PlanRequest& request);

}  // namespace paratune
