// What the cost model predicts for a variant of the planned run (another layout or training
// shape on the same model and cluster): the shared step of the plan rules (tp_too_large,
// pipeline_bubble, recompute_unneeded, expert_imbalance, slow_kernels). A variant must pass the
// layout rules (layout/constraints.h) and, to be proposed, fit in memory with the planner's headroom.
#pragma once

#include <optional>
#include <string>

#include "diagnose/finding.h"
#include "diagnose/inputs.h"

namespace paratune {

// The planner's default HBM headroom (PlanRequest::headroom): a proposed layout keeps this share
// of the GPU's memory free, as `paratune plan` does.
double ProposalHeadroom();

// A gain the cost model predicts between two layouts of the same run counts as a finding from
// 5%: the model's median throughput error on published runs is 6.6% (docs/validation.md), most
// of which two layouts of one model share, so a smaller predicted gain is reported as info.
inline constexpr double kMinPredictedGain = 0.05;
inline Severity SeverityOfPredictedGain(double gain) {
  return gain < kMinPredictedGain ? Severity::kInfo : SeverityForLoss(gain);
}

// The more severe of the two (critical before warning before info).
inline Severity AtLeast(Severity s, Severity floor) {
  return static_cast<int>(s) < static_cast<int>(floor) ? s : floor;
}

// Megatron-LM's recomputation flags for a mode (megatron/training/arguments.py:
// --recompute-granularity, --recompute-method, --recompute-num-layers); "" for none.
std::string MegatronRecomputeFlags(Recompute r);

// EstimateStep of the variant; nullopt when its layout breaks a layout rule.
std::optional<Estimate> EstimateVariant(const PlannedRun& plan, const Layout& layout, const Training& training);

// Peak memory within (1 - ProposalHeadroom()) of the capacity.
bool FitsWithHeadroom(const Estimate& e);

// Throughput lost by running `current` instead of `better`: 1 - tokens/s(current) / tokens/s(better)
// (tokens/s, not step time, so that variants with another global batch compare).
double LossAgainst(const Estimate& current, const Estimate& better);

// The scenario flags that select `e`'s layout and training shape where they differ from
// `base` ("--tp 2 --pp 1 --recompute none"); the layout dimensions tp, pp and dp are always named.
std::string VariantFlags(const Estimate& e, const Estimate& base);

}  // namespace paratune
