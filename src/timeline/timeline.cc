#include "timeline/timeline.h"

namespace paratune {

bool IsComputePhase(Phase p) {
  return p == Phase::kForward || p == Phase::kBackward || p == Phase::kWeightGrad || p == Phase::kOptimizer ||
         p == Phase::kOther;
}

}  // namespace paratune
