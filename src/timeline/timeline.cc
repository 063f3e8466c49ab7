#include "timeline/timeline.h"

namespace paratune {

const char* PhaseName(Phase p) {
  switch (p) {
    case Phase::kForward: return "F";
    case Phase::kBackward: return "B";
    case Phase::kWeightGrad: return "W";
    case Phase::kSend: return "send";
    case Phase::kRecv: return "recv";
    case Phase::kAllReduce: return "all-reduce";
    case Phase::kOptimizer: return "optimizer";
    case Phase::kOther: return "other";
  }
  return "other";
}

bool IsComputePhase(Phase p) {
  return p == Phase::kForward || p == Phase::kBackward || p == Phase::kWeightGrad ||
         p == Phase::kOptimizer || p == Phase::kOther;
}

}  // namespace paratune
