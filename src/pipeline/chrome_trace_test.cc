#include "timeline/chrome_trace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "pipeline/simulator.h"
#include "util/file.h"

namespace paratune {
namespace {

// (e) A simulated 1F1B step with transfers, DP reduction and optimizer written as a Chrome trace
// is valid JSON with one "X" event per timeline event, named processes and threads, and no two
// events overlapping on one thread.
TEST(ChromeTrace, SimulatedStepIsValidAndNonOverlapping) {
  const int pp = 3;
  const int64_t m = 4;
  PipelineInput in = BalancedInput(pp, 1, 1e-3, 2e-3);
  in.p2p_s = 0.3e-3;
  in.grad_reduce_s = {5e-3, 5e-3, 5e-3};
  in.optimizer_s = {1e-3, 1e-3, 1e-3};
  const SimulationResult r = SimulatePipeline(BuildSchedule(ScheduleKind::k1F1B, pp, 1, m), in);
  const size_t compute = 2 * pp * m + pp, sends = 2 * (pp - 1) * m, reductions = pp;
  ASSERT_EQ(r.timeline.events.size(), compute + sends + reductions);

  const std::string path = (std::filesystem::temp_directory_path() / "paratune_chrome_trace_test.json").string();
  WriteChromeTrace(r.timeline, path);
  const nlohmann::json j = nlohmann::json::parse(ReadFile(path));
  std::filesystem::remove(path);
  ASSERT_TRUE(j.contains("traceEvents"));
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> threads;
  std::set<std::string> process_names, thread_names;
  size_t x = 0;
  for (const auto& e : j["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M") {
      if (e["name"] == "process_name") process_names.insert(e["args"]["name"].get<std::string>());
      if (e["name"] == "thread_name") thread_names.insert(e["args"]["name"].get<std::string>());
      continue;
    }
    ASSERT_EQ(ph, "X");
    ++x;
    ASSERT_TRUE(e["args"].contains("phase"));
    threads[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back({e["ts"].get<double>(), e["dur"].get<double>()});
  }
  EXPECT_EQ(x, r.timeline.events.size());
  EXPECT_EQ(process_names, (std::set<std::string>{"stage 0", "stage 1", "stage 2"}));
  EXPECT_EQ(thread_names, (std::set<std::string>{"compute", "comm"}));
  for (auto& [key, v] : threads) {
    std::sort(v.begin(), v.end());
    for (size_t i = 1; i < v.size(); ++i)
      EXPECT_LE(v[i - 1].first + v[i - 1].second, v[i].first + 1e-6) << "pid " << key.first << " tid " << key.second;
  }
  // Microseconds: the last event, rank 2's optimizer step, lasts 1 ms.
  EXPECT_DOUBLE_EQ(ChromeTraceJson(r.timeline)["traceEvents"].back()["dur"].get<double>(), 1e3);
}

}  // namespace
}  // namespace paratune
