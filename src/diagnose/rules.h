// The factories of the diagnosis rules, one per file; diagnose/rules.cc lists them once.
#pragma once

#include <memory>

#include "diagnose/rule.h"

namespace paratune {

std::unique_ptr<Rule> MakeDataStarvationRule();          // data_starvation.cc
std::unique_ptr<Rule> MakeSlowKernelsRule();             // slow_kernels.cc
std::unique_ptr<Rule> MakeTpTooLargeRule();              // tp_too_large.cc
std::unique_ptr<Rule> MakeNetworkBottleneckRule();       // network_bottleneck.cc
std::unique_ptr<Rule> MakeThroughputChangePointRule();   // throughput_change_point.cc
std::unique_ptr<Rule> MakeCheckpointStallRule();         // checkpoint_stall.cc
std::unique_ptr<Rule> MakeThermalThrottlingRule();       // throttling.cc (thermal)
std::unique_ptr<Rule> MakePowerThrottlingRule();         // throttling.cc (power)
std::unique_ptr<Rule> MakeTopologyMissingNvlinkRule();   // topology_missing_nvlink.cc
std::unique_ptr<Rule> MakePipelineBubbleRule();          // pipeline_bubble.cc
std::unique_ptr<Rule> MakeRecomputeUnneededRule();       // recompute_unneeded.cc
std::unique_ptr<Rule> MakeStragglerRule();               // straggler.cc
std::unique_ptr<Rule> MakeExpertImbalanceRule();         // expert_imbalance.cc
std::unique_ptr<Rule> MakeCollectiveWrongResultsRule();  // collective_wrong_results.cc
std::unique_ptr<Rule> MakeMemoryFragmentationRule();     // memory_fragmentation.cc
std::unique_ptr<Rule> MakeCriticalPathRule();            // critical_path_bound.cc

}  // namespace paratune
