// The step-time breakdown of an estimate (TimeBreakdown) and the one list of its terms
// (kStepTerms): the estimate's JSON (`time.*`, docs/json.md), the CLI's table, the plan's
// explanation, the report's stacked bar and the run registry's metrics are all derived from
// this list, so a new term is one line here plus the cost code that fills it.
#pragma once

namespace paratune {

// Where the step time of the critical pipeline stage goes. The terms add up to the step time
// (recompute_s is the part of compute_s that repeats forward work). In the breakdown vocabulary
// of timeline/breakdown.h: compute + the in-stage exposed communication + optimizer is that
// stage's compute; pp + dp its non-compute; the bubble its idle time.
struct TimeBreakdown {
  double compute_s = 0;    // GEMMs, attention, memory-bound kernels (incl. recompute)
  double recompute_s = 0;  // the part of compute_s that recomputes forward work
  double tp_s = 0;         // exposed communication by kind
  double cp_s = 0;
  double ep_s = 0;
  double pp_s = 0;
  double dp_s = 0;
  double offload_s = 0;  // activation offloading's copies not hidden behind the passes
  double bubble_s = 0;   // idle in the pipeline schedule
  double optimizer_s = 0;
  double other_s = 0;
  double exposed_comm_s() const { return tp_s + cp_s + ep_s + pp_s + dp_s; }
  double total() const;
};

// One step-time term, in the order they are shown.
struct StepTerm {
  const char* key;          // JSON key under `time`
  const char* label;        // how the text reports name it
  const char* chart_label;  // its legend entry in the report's stacked bar (short)
  // The run registry's metric it is recorded as (runs/run_record.h kMetrics); terms that share
  // a metric are summed into it (offload has none of its own: the registry's "other").
  const char* registry_metric;
  double TimeBreakdown::*value;
  // The term this one is a part of (recompute_s of compute_s), or nullptr: a part is not added
  // to the total, and the report draws it apart from its whole.
  const char* part_of;
  // The date the term joined paratune.estimate/1, or nullptr for the first terms: documents
  // written before it lack the key, and readers take 0 for it there (docs/json.md).
  const char* added = nullptr;
};
inline constexpr StepTerm kStepTerms[] = {
    {"compute_s", "compute", "compute", "compute_s", &TimeBreakdown::compute_s, nullptr},
    {"recompute_s", "of which recomputation", "recompute", "recompute_s", &TimeBreakdown::recompute_s, "compute_s"},
    {"tp_comm_s", "exposed TP communication", "TP comm", "exposed_tp_comm_s", &TimeBreakdown::tp_s, nullptr},
    {"cp_comm_s", "exposed CP communication", "CP comm", "exposed_cp_comm_s", &TimeBreakdown::cp_s, nullptr},
    {"ep_comm_s", "exposed EP all-to-all", "EP comm", "exposed_ep_comm_s", &TimeBreakdown::ep_s, nullptr},
    {"pp_comm_s", "exposed PP send/receive", "PP comm", "exposed_pp_comm_s", &TimeBreakdown::pp_s, nullptr},
    {"dp_comm_s", "exposed DP communication", "DP comm", "exposed_dp_comm_s", &TimeBreakdown::dp_s, nullptr},
    {"offload_s", "exposed activation offload", "offload", "other_s", &TimeBreakdown::offload_s, nullptr, "2026-12-04"},
    {"bubble_s", "pipeline bubble", "bubble", "bubble_s", &TimeBreakdown::bubble_s, nullptr},
    {"optimizer_s", "optimizer step", "optimizer", "optimizer_s", &TimeBreakdown::optimizer_s, nullptr},
    {"other_s", "other", "other", "other_s", &TimeBreakdown::other_s, nullptr},
};

inline double TimeBreakdown::total() const {
  double t = 0;
  for (const StepTerm& term : kStepTerms)
    if (!term.part_of) t += this->*term.value;
  return t;
}

}  // namespace paratune
