// PlanRequest: what `paratune plan` searches: the model, cluster and training shape, which
// layout dimensions are pinned or bounded, how much HBM to keep free, and what to rank by.
// docs/planner.md describes the search.
#pragma once

#include <optional>

#include "util/enum_names.h"
#include "util/progress.h"

#include "step/estimate.h"
#include "hardware/cluster.h"
#include "layout/layout.h"
#include "model/model_spec.h"

namespace paratune {

enum class Objective { kThroughput, kMemory };
inline constexpr EnumNames<Objective, 2> kObjectiveNames{
    {{{Objective::kThroughput, "throughput"}, {Objective::kMemory, "memory"}}}, 2};
inline const char* ObjectiveName(Objective o) { return kObjectiveNames.Name(o); }
inline Objective ParseObjective(const std::string& s, const std::string& where) {
  return kObjectiveNames.Parse(s, where, "objective");
}

// Sequences at or above this length are long enough for context parallelism to be considered
// (below it the attention of one sequence fits one GPU's work comfortably; Megatron-Core and
// NeMo recipes turn CP on from 16k-32k tokens). A pinned --cp overrides it.
inline constexpr int64_t kContextParallelMinSeq = 16384;

struct PlanRequest {
  ModelSpec model;
  ClusterSpec cluster;
  Training training;           // precision is ignored when any_precision
  bool any_precision = false;  // search every precision the GPU has tensor cores for

  // Pinned dimensions; unset = searched.
  std::optional<int> tp, pp, vp, cp, ep, etp, zero, mbs;
  std::optional<Recompute> recompute;
  // Upper bounds of searched dimensions; 0 = no bound beyond the rules.
  int max_tp = 0, max_pp = 0, max_vp = 0, max_cp = 0, max_ep = 0, max_mbs = 0;

  double headroom = 0.05;  // fraction of HBM kept free: fits when peak <= (1 - headroom) * HBM
  int top = 10;            // how many layouts to return
  Objective objective = Objective::kThroughput;
  // Skip layouts whose lower bounds keep them out of the ranking (docs/planner.md, "Pruning and
  // speed"); false estimates every valid layout (the same ranking, slower: tests compare them).
  bool prune = true;

  Layout switches;  // overlap, flash-attention and SP switches copied into every candidate
  EstimateOptions options;
  Progress* progress = nullptr;  // told the number of layouts estimated so far
};

}  // namespace paratune
