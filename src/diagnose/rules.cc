// The one list of diagnosis rules (diagnose/rules.h), in the order of docs/diagnose.md.
#include "diagnose/rules.h"

namespace paratune {

const std::vector<std::unique_ptr<Rule>>& AllRules() {
  static const std::vector<std::unique_ptr<Rule>> rules = [] {
    std::vector<std::unique_ptr<Rule>> r;
    r.push_back(MakeDataStarvationRule());
    r.push_back(MakeSlowKernelsRule());
    r.push_back(MakeTpTooLargeRule());
    r.push_back(MakeNetworkBottleneckRule());
    r.push_back(MakeThroughputChangePointRule());
    r.push_back(MakeCheckpointStallRule());
    r.push_back(MakeThermalThrottlingRule());
    r.push_back(MakePowerThrottlingRule());
    r.push_back(MakeTopologyMissingNvlinkRule());
    r.push_back(MakePipelineBubbleRule());
    r.push_back(MakeRecomputeUnneededRule());
    r.push_back(MakeStragglerRule());
    r.push_back(MakeExpertImbalanceRule());
    r.push_back(MakeCollectiveWrongResultsRule());
    r.push_back(MakeMemoryFragmentationRule());
    r.push_back(MakeCriticalPathRule());
    return r;
  }();
  return rules;
}

}  // namespace paratune
