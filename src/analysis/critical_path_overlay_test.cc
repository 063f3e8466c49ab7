#include "analysis/critical_path_overlay.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/reduced_trace.h"
#include "analysis/trace_analysis.h"
#include "trace/kineto_reader.h"
#include "util/test_util.h"

namespace paratune {
namespace {

RankTrace SimpleAdd() {
  RankTrace t = ReadKinetoTrace(TestDataPath("traces/hta/critical_path/simple_add.json.gz"));
  t.rank = 0;
  return t;
}

// The whole trace with HTA's end-to-end test's data_load events, its path kept for the overlay.
AnalysisOptions WholeTracePath() {
  CriticalPathOptions o;
  o.annotation = "";
  o.data_load_events = {"data_load"};
  o.keep_path = true;
  AnalysisOptions ao;
  ao.critical_path = o;
  return ao;
}

// HTA's own overlay of simple_add (tests/data/critical_path/end_to_end/simple_add/output at
// f4d0062, reduced by scripts/hta-critical-events.py --flows): 192 arrows, each (type, start µs,
// end µs) as HTA placed them. paratune's arrows are the same, as a multiset (HTA's order is a
// Python set's).
TEST(CriticalPathOverlay, ArrowsAreHtasOnSimpleAdd) {
  std::ifstream in(TestDataPath("traces/hta/critical_path/simple_add_flows_by_hta.txt"));
  std::vector<std::tuple<std::string, int64_t, int64_t>> hta;
  std::string type;
  int64_t from = 0, to = 0;
  while (in >> type >> from >> to) hta.emplace_back(type, from, to);
  ASSERT_EQ(hta.size(), 192u);
  const std::vector<RankTrace> ranks = {SimpleAdd()};
  const TraceAnalysis a = AnalyzeTraces(ranks, WholeTracePath());
  ASSERT_TRUE(a.ranks[0].critical_path.has_value());
  std::vector<std::tuple<std::string, int64_t, int64_t>> ours;
  for (const CriticalFlow& f : CriticalPathFlows(ranks[0], *a.ranks[0].critical_path))
    ours.emplace_back(kCriticalEdgeTypeNames.Name(f.type), f.from_ts_ns / 1000, f.to_ts_ns / 1000);
  std::sort(hta.begin(), hta.end());
  std::sort(ours.begin(), ours.end());
  EXPECT_EQ(ours, hta);
}

// The reduced trace carries the overlay: HTA marked 624 events critical (352 operators, 250
// runtime calls, 16 copies, 5 kernels, 1 memset; simple_add_critical_by_hta.txt), and its 192
// arrows are 384 flow ends, each pair sharing an id, each end on a thread that holds a slice.
TEST(CriticalPathOverlay, ReducedTraceDrawsHtasOverlay) {
  const std::vector<RankTrace> ranks = {SimpleAdd()};
  const TraceAnalysis a = AnalyzeTraces(ranks, WholeTracePath());
  const nlohmann::json ev = nlohmann::json::parse(ReducedTraceJson(ranks, a)).at("traceEvents");
  std::map<std::string, int> critical_by_cat;
  std::map<int64_t, int> ends_by_id;
  std::map<std::string, int> flows_by_type;
  std::map<int64_t, int> slices_by_tid;
  int critical = 0;
  for (const auto& e : ev) {
    if (e.at("ph") == "X") {
      ++slices_by_tid[e.at("tid").get<int64_t>()];
      if (e.at("args").value("critical", 0) == 1) ++critical, ++critical_by_cat[e.value("cat", "")];
    } else if (e.at("ph") == "s" || e.at("ph") == "f") {
      ++ends_by_id[e.at("id").get<int64_t>()];
      if (e.at("ph") == "s") ++flows_by_type[e.at("args").at("type").get<std::string>()];
    }
  }
  EXPECT_EQ(critical, 624);
  // The GPU events go under the reduced trace's kernel categories, the CPU ones under Kineto's.
  EXPECT_EQ(critical_by_cat["cpu_op"], 352);
  EXPECT_EQ(critical_by_cat["cuda_runtime"], 250);
  EXPECT_EQ(flows_by_type["critical_path_dependency"], 158);
  EXPECT_EQ(flows_by_type["critical_path_kernel_launch_delay"], 17);
  EXPECT_EQ(flows_by_type["critical_path_sync_dependency"], 17);
  EXPECT_EQ(ends_by_id.size(), 192u);
  for (const auto& [id, n] : ends_by_id) EXPECT_EQ(n, 2) << id;
  for (const auto& e : ev)
    if (e.at("ph") == "s" || e.at("ph") == "f") EXPECT_GT(slices_by_tid[e.at("tid").get<int64_t>()], 0) << e.dump();
}

// Without keep_path the analysis frees the path's events (many ranks' whole-trace paths would add
// up), and the reduced trace has no overlay.
TEST(CriticalPathOverlay, NoOverlayWithoutTheKeptPath) {
  const std::vector<RankTrace> ranks = {SimpleAdd()};
  AnalysisOptions ao = WholeTracePath();
  ao.critical_path->keep_path = false;
  const TraceAnalysis a = AnalyzeTraces(ranks, ao);
  ASSERT_TRUE(a.ranks[0].critical_path.has_value());
  EXPECT_TRUE(a.ranks[0].critical_path->steps.empty());
  const std::string text = ReducedTraceJson(ranks, a);
  EXPECT_EQ(text.find("\"critical\""), std::string::npos);
  EXPECT_EQ(text.find("critical_path"), std::string::npos);
}

}  // namespace
}  // namespace paratune
