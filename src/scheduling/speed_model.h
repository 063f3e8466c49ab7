// SpeedModel: how much slower a job runs on a given placement than on a packed one, from the
// cost model: the job's model and layout (its own, or the planner's choice for its GPU count on
// a packed placement) are composed once on the packed fabric and once on a fabric derived from
// the placement's shape (ranks per node and per NVLink domain the placement keeps together,
// spine crossing when it spans leaves), and the slowdown is the ratio of the step times. A job
// without a model, or on a node type the catalog cannot price, runs at its trace speed on any
// placement (slowdown 1, `modelled` false). Results are cached by (model, layout, type, shape),
// so a replay of 82,000 jobs prices a few dozen distinct cases.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "scheduling/job.h"
#include "scheduling/placement.h"
#include "scheduling/topology.h"
#include "hardware/cluster.h"
#include "layout/layout.h"
#include "model/model_spec.h"

namespace paratune {

// The training shape a job is priced with (docs/cluster-speed.md, "Training shape"): sequences of
// 4096 tokens (Llama 2's pre-training context, Touvron et al. 2023 Sec. 2.2) and a global batch
// of 4 sequences per GPU (16,384 tokens per GPU per step, inside the 1-16 sequences per GPU of
// Megatron-LM's weak-scaling runs, Narayanan et al. 2021 Table 1), so that the data-parallel
// share of the step does not depend on the job's size.
inline constexpr int64_t kSpeedModelSeq = 4096;
inline constexpr int kSpeedModelSequencesPerGpu = 4;

struct Pricing {
  double slowdown = 1;    // step time on this placement / step time packed (>= 1)
  bool modelled = false;  // the cost model priced it
  double mfu = 0;         // the job's model FLOP utilisation on this placement (modelled only)
  std::string layout;     // "tp 8 pp 1 dp 2", the layout priced (modelled only)
  // Why it is slower, for the job's record: "tp 8 split over 2 nodes", "dp crosses the spine".
  std::string note;
};

class SpeedModel {
 public:
  explicit SpeedModel(const ClusterTopology& topology);
  // Prices `job` on a placement of this shape. Never throws for a job the trace reader accepted:
  // a model that cannot be composed (no layout fits) gives slowdown 1 with the reason in `note`.
  const Pricing& Price(const Job& job, const PlacementShape& shape);
  int cache_entries() const { return static_cast<int>(cache_.size()); }
  // Layouts planned or composed on a packed placement so far (one per model, layout pins, GPU
  // count and node type).
  int packed_entries() const { return static_cast<int>(packed_.size()); }

 private:
  // A job's layout and its step on a packed placement of its node type.
  struct Packed {
    bool ok = false;
    std::string note;  // why not, when !ok
    ModelSpec model;
    Training training;
    Layout layout;  // dp filled
    double step_time_s = 0;
    double mfu = 0;
  };
  const Packed& PackedCase(const Job& job, int type, int gpus);
  const ModelSpec* Model(const std::string& name, std::string& error);

  const ClusterTopology& topology_;
  // (model, tp, pp, type, gpus, aligned_per_node, aligned_per_domain, leaves spanned (1 within
  // one leaf), leaves > 1: the placement crosses the spine).
  using Key = std::tuple<std::string, int, int, int, int, int, int, int, bool>;
  std::map<Key, Pricing> cache_;
  std::map<std::tuple<std::string, int, int, int, int>, Packed> packed_;
  std::map<std::string, std::optional<ModelSpec>> models_;
  std::map<std::string, std::string> model_errors_;
};

}  // namespace paratune
