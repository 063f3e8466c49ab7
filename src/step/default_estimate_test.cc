// The default scenario's step time (ResolveScenario of an empty request: what `paratune estimate`
// and `paratune.estimate()` run with no arguments), bit for bit against the value written in
// testdata/default_step_time_s.txt, which the Python tests (python/tests/test_estimate.py) assert
// too: the C++ library, the CLI and the Python module give the same double.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "scenario/resolve_scenario.h"
#include "step/estimate.h"

namespace paratune {
namespace {

// The value of the file: its first line that is not a comment, a C99 hexadecimal float.
double GoldenStepTime() {
  std::ifstream in(std::string(PARATUNE_SOURCE_DIR) + "/testdata/default_step_time_s.txt");
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') return std::strtod(line.c_str(), nullptr);
  ADD_FAILURE() << "testdata/default_step_time_s.txt holds no value";
  return 0;
}

TEST(DefaultEstimate, StepTimeIsTheGoldenValueBitForBit) {
  const Scenario s = ResolveScenario(ScenarioRequest{});
  const Estimate e = EstimateStep(s.model, s.cluster, s.training, s.layout, EstimateOptions{s.rules, {}});
  char hex[64];
  std::snprintf(hex, sizeof hex, "%a", e.step_time_s);
  EXPECT_EQ(e.step_time_s, GoldenStepTime())
      << "the default estimate's step time is now " << hex << " (" << e.step_time_s
      << " s); when the change is meant (a refit, a model change), write it into testdata/default_step_time_s.txt";
}

}  // namespace
}  // namespace paratune
