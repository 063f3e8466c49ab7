// PLACEHOLDER (scaffolding): the cost-model pricing is being written on branch i12-speed; on a
// merge conflict keep that side.
#include "cluster/speed_model.h"

namespace paratune {

SpeedModel::SpeedModel(const ClusterTopology& topology) : topology_(topology) {}

const Pricing& SpeedModel::Price(const Job& job, const PlacementShape& shape) {
  Key k{job.model, job.tp, job.pp, shape.type, shape.gpus, shape.aligned_per_node, shape.aligned_per_domain,
        shape.leaves, false};
  auto it = cache_.find(k);
  if (it != cache_.end()) return it->second;
  (void)topology_;
  return cache_.emplace(k, Pricing{}).first->second;
}

}  // namespace paratune
