// The step composer: the one place where a layout's stage costs (cost/stage_costs.h) and its
// pipeline schedule (pipeline/schedule.h) become one training step. It runs the schedule's event
// simulation once, with the pipeline transfers, the data-parallel gradient reduction and ZeRO
// parameter gathers on their own streams and the optimizer after them, and assembles the
// Estimate from it: `estimate`, `simulate`, `plan` and `analyze --model` all go through here, so
// a layout has one step time everywhere.
//
// Bounded work: up to kFullSimulationMicroBatches micro-batches every one is simulated. Beyond,
// the schedule's steady state is periodic (every further group of micro-batches adds the same
// time on every rank), so the composer simulates three step lengths past the warm-up, checks
// that their increments agree, and extends the figures linearly to the real count: the same
// numbers a full simulation gives (to rounding), in bounded time and memory.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "pipeline/simulator.h"
#include "step/estimate.h"

namespace paratune {

inline constexpr int64_t kFullSimulationMicroBatches = 256;
// Largest schedule (ops over all ranks) one simulation may run, and the largest timeline a trace
// may hold; beyond, the layout is rejected with a clear line.
inline constexpr int64_t kMaxSimulatedOps = int64_t{1} << 23;
inline constexpr int64_t kMaxTimelineOps = int64_t{1} << 21;

// The pipeline time of a schedule over given pass times alone (no transfers, DP or optimizer),
// which the bubble is measured against. It does not depend on the ZeRO stage or the overlap
// switches, so a search that composes many layouts shares it through this cache.
class ScheduleTimeCache {
 public:
  using Key = std::tuple<int, int, int, int64_t, std::vector<double>>;
  const double* Find(const Key& k) const {
    auto it = times_.find(k);
    return it == times_.end() ? nullptr : &it->second;
  }
  void Put(Key k, double t) { times_.emplace(std::move(k), t); }

 private:
  std::map<Key, double> times_;
};

struct ComposeOptions {
  bool record_timeline = false;  // fill StepResult::simulation.timeline with every micro-batch
  // Micro-batch counts up to this are simulated in full; larger ones are extended from the
  // periodic steady state.
  int64_t full_simulation_micro_batches = kFullSimulationMicroBatches;
  ScheduleTimeCache* schedule_cache = nullptr;  // optional, not thread-safe
};

struct StepResult {
  Estimate estimate;
  SimulationResult simulation;          // the whole step's figures (extended when extrapolated)
  int64_t simulated_micro_batches = 0;  // micro-batches in the longest run simulated
  bool extrapolated = false;            // figures extended from the periodic steady state
};

// Checks the layout (InputError listing every broken rule), then composes its step. Throws
// InputError when the schedule is too large to simulate within the bounds above.
StepResult ComposeStep(const ModelSpec& model, const ClusterSpec& cluster, const Training& training, Layout layout,
                       const EstimateOptions& options = {}, const ComposeOptions& compose = {});

// The same for a layout that already passed CheckLayout (layout.dp filled in).
StepResult ComposeValidStep(const ModelSpec& model, const ClusterSpec& cluster, const Training& training,
                            const Layout& layout, const EstimateOptions& options = {},
                            const ComposeOptions& compose = {});

}  // namespace paratune
