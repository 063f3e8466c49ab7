// SpeedModel: how much slower a job runs on a given placement than on a packed one, from the
// cost model: the job's model and layout (its own, or the planner's choice for its GPU count on
// a packed placement) are composed once on the packed fabric and once on a fabric derived from
// the placement's shape (ranks per node and per NVLink domain the placement keeps together,
// spine crossing when it spans leaves), and the slowdown is the ratio of the step times. A job
// without a model, or on a node type the catalog cannot price, runs at its trace speed on any
// placement (slowdown 1, `modelled` false). Results are cached by (model, layout, type, shape),
// so a replay of 82,000 jobs prices a few dozen distinct cases.
#pragma once

#include <map>
#include <string>
#include <tuple>

#include "cluster/job.h"
#include "cluster/placement.h"
#include "cluster/topology.h"

namespace paratune {

struct Pricing {
  double slowdown = 1;      // step time on this placement / step time packed (>= 1)
  bool modelled = false;    // the cost model priced it
  double mfu = 0;           // the job's model FLOP utilisation on this placement (modelled only)
  std::string layout;       // "tp 8 pp 1 dp 2", the layout priced (modelled only)
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

 private:
  const ClusterTopology& topology_;
  using Key = std::tuple<std::string, int, int, int, int, int, int, int, bool>;
  std::map<Key, Pricing> cache_;
};

}  // namespace paratune
