// FittingChange: for a layout that does not fit in memory, the one-knob change that makes it fit
// and keeps the most throughput: more recomputation, a higher ZeRO stage, a smaller micro-batch,
// twice the tensor or pipeline parallelism. `estimate` leads with it when a layout does not fit
// (issue 32); `plan` searches all knobs together.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "step/estimate.h"

namespace paratune {

struct FittingChange {
  std::string change;  // "recompute full", "zero 3", "mbs 1", "tp 8", "pp 4"
  Estimate estimate;   // the layout with the change
};

// The fitting single change with the highest tokens/s per GPU, or nullopt when none fits.
std::optional<FittingChange> FindFittingChange(const ModelSpec& m, const ClusterSpec& c, const Training& t,
                                               const Layout& l, const EstimateOptions& o);

// The estimate document's "fitting_change" (docs/json.md), added when the layout does not fit:
// {"change", "peak_memory_bytes", "step_time_s", "tokens_per_s_per_gpu", "mfu"} of the change,
// or null when no one-knob change fits.
nlohmann::json FittingChangeJson(const std::optional<FittingChange>& fix);

}  // namespace paratune
