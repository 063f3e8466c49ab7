// The report sections against the DOM contract of chart.h: each chart of each schema holds the
// document's values (hand-made documents of the documented schemas, docs/json.md), the page is
// self-contained, and bad documents are one-line errors naming the file and field.
#include "report/report.h"

#include <gtest/gtest.h>

#include <regex>

#include <fmt/format.h>

#include "analysis/analysis_json.h"
#include "analysis/trace_diff_json.h"
#include "compare/analyze_document.h"
#include "report/test_documents.h"
#include "schema/memory_breakdown.h"
#include "schema/step_time.h"
#include "scheduling/cluster_json.h"
#include "util/error.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// The markup of the figure with DOM id `id` (empty when absent).
std::string Figure(const std::string& html, const std::string& id) {
  const size_t at = html.find("id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  const size_t start = html.rfind("<figure", at);
  const size_t end = html.find("</figure>", at);
  return html.substr(start, end - start);
}

int CountOf(const std::string& s, const std::string& needle) {
  int n = 0;
  for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + needle.size())) ++n;
  return n;
}

// data-value attributes of the bars of a figure, in document order.
std::vector<double> BarValues(const std::string& figure) {
  std::vector<double> out;
  static const std::regex re("<rect[^>]*class=\"bar\"[^>]*data-value=\"([-0-9.e+]+)\"");
  for (auto it = std::sregex_iterator(figure.begin(), figure.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back(std::stod((*it)[1]));
  return out;
}

nlohmann::json Estimate() { return report_test::EstimateDoc(); }

std::string Render(const nlohmann::json& doc, const std::string& path = "in.json", bool compare = false,
                   const nlohmann::json* other = nullptr) {
  std::vector<ReportInput> in{{path, doc}};
  if (other) in.push_back({"b.json", *other});
  ReportOptions o;
  o.compare = compare;
  return RenderReport(in, o);
}

TEST(Report, PlanChartsHaveOneBarPerRankedLayoutWithItsValue) {
  const nlohmann::json plan = report_test::PlanDoc();
  const std::string html = Render(plan, "plan.json");
  const std::string throughput = Figure(html, "plan-json-plan-throughput");
  ASSERT_FALSE(throughput.empty());
  EXPECT_EQ(BarValues(throughput), (std::vector<double>{3000, 2500, 1250}));
  EXPECT_EQ(BarValues(Figure(html, "plan-json-plan-mfu")), (std::vector<double>{0.5, 0.375, 0.25}));
  const std::string mem = Figure(html, "plan-json-plan-memory");
  EXPECT_EQ(BarValues(mem), (std::vector<double>{40e9, 50e9, 60e9}));
  EXPECT_EQ(CountOf(mem, "class=\"reference\""), 1);
  EXPECT_NE(mem.find("data-value=\"76000000000\""), std::string::npos);
  EXPECT_NE(html.find("less TP communication"), std::string::npos);
  // The winner's estimate charts follow.
  EXPECT_FALSE(Figure(html, "plan-json-plan-winner-time").empty());
  // Self-contained: nothing fetched.
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(Report, EstimateStacksTheTermsAndTheMemoryKinds) {
  const std::string html = Render(Estimate(), "e.json");
  const std::string time = Figure(html, "e-json-estimate-time");
  ASSERT_FALSE(time.empty());
  EXPECT_NE(time.find("data-chart=\"stacked\""), std::string::npos);
  // compute without recompute: 1.5 - 0.25 = 1.25; recompute 0.25; tp 0.125; dp 0.0625; bubble
  // 0.25; optimizer 0.0625; the absent terms are 0.
  const std::vector<double> v = BarValues(time);
  double sum = 0;
  for (double x : v) sum += x;
  EXPECT_DOUBLE_EQ(sum, 2.0);
  EXPECT_NE(time.find("data-series=\"compute\" data-category"), std::string::npos);
  const std::string mem = Figure(html, "e-json-estimate-memory");
  EXPECT_NE(mem.find("data-category=\"stage 1\""), std::string::npos);
  EXPECT_NE(mem.find("data-value=\"31000000000\""), std::string::npos);  // stage 1 activations
  EXPECT_EQ(BarValues(Figure(html, "e-json-estimate-links")), (std::vector<double>{0.5, 0.75}));
}

// Issue 38: the report's stacks are derived from schema/step_time.h and schema/memory_breakdown.h,
// so a term added there is drawn with no edit here: every term and memory kind with a value (a
// distinct power of two) is one series under its chart label, a whole without its parts.
TEST(Report, EstimateChartsDrawEveryTermOfTheSchemaLists) {
  nlohmann::json doc = Estimate();
  doc["time"] = nlohmann::json::object();
  double v = 1;
  for (const StepTerm& t : kStepTerms) doc["time"][t.key] = (v /= 2);
  for (auto& stage : doc["stages"]) {
    stage["memory"] = nlohmann::json::object();
    double b = 1e9;
    for (const MemoryTerm& m : kMemoryTerms) stage["memory"][std::string(m.key) + "_bytes"] = (b *= 2);
  }
  const std::string html = Render(doc, "e.json");
  const std::string time = Figure(html, "e-json-estimate-time");
  std::vector<double> expected;
  for (const StepTerm& t : kStepTerms) {
    double x = doc["time"][t.key].get<double>();
    for (const StepTerm& part : kStepTerms)
      if (part.part_of && std::string(part.part_of) == t.key) x -= doc["time"][part.key].get<double>();
    expected.push_back(x);
    EXPECT_EQ(CountOf(time, fmt::format("class=\"bar\" data-series=\"{}\"", t.chart_label)), 1) << t.key;
  }
  const std::vector<double> drawn = BarValues(time);  // data-value keeps 6 significant digits (SvgValue)
  ASSERT_EQ(drawn.size(), expected.size());
  for (size_t i = 0; i < drawn.size(); ++i) EXPECT_NEAR(drawn[i], expected[i], 5e-6 * expected[i]) << kStepTerms[i].key;
  const std::string mem = Figure(html, "e-json-estimate-memory");
  for (size_t k = 0; k < std::size(kMemoryTerms); ++k) {
    EXPECT_EQ(CountOf(mem, fmt::format("class=\"bar\" data-series=\"{}\"", kMemoryTerms[k].chart_label)), 2)
        << kMemoryTerms[k].key;  // one bar per stage
  }
  EXPECT_EQ(BarValues(mem).size(), 2 * std::size(kMemoryTerms));
}

// Issue 32: "step_time_s": -1 was drawn as "step -1 s". A duration, size or rate (by the unit in
// its name) cannot be negative; a difference ("delta") can.
TEST(Report, NegativeDurationsAndSizesAreErrors) {
  nlohmann::json doc = Estimate();
  doc["throughput"]["step_time_s"] = -1;
  EXPECT_CONTAINS(InputErrorOf([&] { Render(doc, "neg.json"); }),
                  "neg.json: field 'throughput.step_time_s' is negative (a duration, size or rate)");
  doc = Estimate();
  doc["stages"][1]["memory"]["params_bytes"] = -5;
  EXPECT_CONTAINS(InputErrorOf([&] { Render(doc, "neg.json"); }), "params_bytes' is negative");
}

TEST(Report, SimulateGanttHasOneRowPerStage) {
  const nlohmann::json sim = report_test::SimulateDoc();
  const std::string html = Render(sim, "s.json");
  const std::string g = Figure(html, "s-json-simulate-gantt");
  ASSERT_FALSE(g.empty());
  EXPECT_EQ(CountOf(g, "class=\"gantt-row\""), 4);
  EXPECT_EQ(CountOf(g, "class=\"span\" data-category=\"forward\""), 16);
  EXPECT_EQ(CountOf(g, "class=\"span\" data-category=\"backward\""), 16);
  EXPECT_NE(g.find("data-row=\"stage 3\""), std::string::npos);
}

// Two policies of a 16-GPU cluster, typed and written by ClusterDocumentJson as `paratune cluster`
// writes them: the production class only, a sampled series each.
nlohmann::json Cluster() {
  ClusterDocument d;
  d.cluster.gpus = 16;
  d.cluster.description = "2 nodes";
  d.trace = {"t.csv", "native", 3, 0, {}};
  const char* names[] = {"fifo", "topo"};
  for (int i = 0; i < 2; ++i) {
    ClusterPolicySummary& p = d.policies.emplace_back();
    p.policy = names[i];
    p.metrics.utilization = 0.75;
    p.metrics.goodput = 0.5 + 0.25 * i;
    p.metrics.queue_delay_s = {.mean = 100.0 / (i + 1), .p50 = 10, .p99 = 1000, .p999 = 2000, .cdf = {0, 5, 10, 1000}};
    ClassMetrics production;
    production.job_class = "production";
    production.queue_delay_s = {.mean = 50, .p99 = 500, .cdf = {0, 1, 500}};
    p.metrics.by_class = {production};
    p.metrics.split_placements = 10 * (1 - i);
    p.metrics.split_placements_le8 = 7 * (1 - i);
    p.metrics.fragmentation.fragmented_share_of_free = 0.25;
    p.series = {{0, 3600, 7200}, {8, 16, 4}, {0, 2, 0}, {0, 0, 0}};
  }
  return ClusterDocumentJson(d);
}

TEST(Report, ClusterChartsComparePolicies) {
  const nlohmann::json cl = Cluster();
  const std::string html = Render(cl, "c.json");
  // Category by category: fifo's two bars, then topo's.
  EXPECT_EQ(BarValues(Figure(html, "c-json-cluster-splits")), (std::vector<double>{10, 7, 0, 0}));
  const std::string util = Figure(html, "c-json-cluster-utilization");
  EXPECT_NE(util.find("data-series=\"goodput\" data-category=\"topo\" data-value=\"0.75\""), std::string::npos);
  const std::string alloc = Figure(html, "c-json-cluster-allocated");
  EXPECT_EQ(CountOf(alloc, "class=\"series\""), 2);
  EXPECT_FALSE(Figure(html, "c-json-cluster-cdf-production").empty());
  EXPECT_TRUE(Figure(html, "c-json-cluster-cdf-experimental").empty());
}

TEST(Report, CompareListsWhatMoved) {
  nlohmann::json a = Estimate(), b = Estimate();
  b["time"]["tp_comm_s"] = 0.5;
  b["throughput"]["step_time_s"] = 2.375;
  const std::string html = Render(a, "a.json", true, &b);
  EXPECT_NE(html.find("time.tp_comm_s"), std::string::npos);
  EXPECT_NE(html.find("throughput.step_time_s"), std::string::npos);
  // tp_comm_s moved by 4x: it is listed before the step time (relative change 0.75 vs 0.16).
  EXPECT_LT(html.find("time.tp_comm_s"), html.find("throughput.step_time_s"));
  EXPECT_EQ(CountOf(html, "class=\"side\""), 2);
}

// paratune.analyze/1 with two ranks' collectives: the bus bandwidth chart shows the mean over
// ranks of each kind's busbw and, beside it, of its link ceiling (analyze --gpu), one bar each.
nlohmann::json Analyze(bool with_ceiling) {
  TraceAnalysis a;
  a.events = 10;
  for (int r = 0; r < 2; ++r) {
    RankAnalysis ra;
    ra.rank = r;
    ra.temporal = {.window_s = 1.75, .compute_s = 1.0, .non_compute_s = 0.5, .idle_s = 0.25};
    CollectiveStats ar, a2a;
    ar.kind = Collective::kAllReduce, ar.busbw_bytes_per_s = 300e9 + r * 20e9;
    a2a.kind = Collective::kAllToAll, a2a.busbw_bytes_per_s = 60e9;
    if (with_ceiling) ar.ceiling_bytes_per_s = 370e9, a2a.ceiling_bytes_per_s = 96e9;
    ra.collectives = {ar, a2a};
    a.ranks.push_back(ra);
  }
  return AnalysisJson(a);
}

TEST(Report, AnalyzeBusBandwidthBesideItsCeiling) {
  const std::string html = Render(Analyze(true), "an.json");
  const std::string fig = Figure(html, "an-json-analyze-busbw");
  ASSERT_FALSE(fig.empty());
  // Categories all_reduce, all_to_all; per category busbw then ceiling.
  EXPECT_EQ(BarValues(fig), (std::vector<double>{310e9, 370e9, 60e9, 96e9}));
  EXPECT_EQ(CountOf(fig, "class=\"bar\" data-series=\"ceiling\""), 2);  // the bars (the legend names it too)
  EXPECT_NE(fig.find(">ceiling (B/s)</th>"), std::string::npos);        // the data table's column
  EXPECT_EQ(html.find("ceiling not given"), std::string::npos);
  // Without the ceiling: the busbw bars alone and the note.
  const std::string none = Render(Analyze(false), "an.json");
  const std::string nf = Figure(none, "an-json-analyze-busbw");
  EXPECT_EQ(BarValues(nf), (std::vector<double>{310e9, 60e9}));
  EXPECT_EQ(CountOf(nf, "data-series=\"ceiling\""), 0);
  EXPECT_NE(none.find("ceiling not given (pass --gpu to analyze)"), std::string::npos);
}

// A trace diff in the document: the largest changes in total time, control beside test, and
// the counts by change; a diff written and read back keeps every row.
TEST(Report, AnalyzeTraceDiffChart) {
  TraceDiff d;
  d.control.selected = {{1}, {1010}};
  d.test.selected = {{1}, {1010}};
  d.rows = {{"ProfilerStep#1010", 1, 1, 0.122149, 0.2, OpChange::kUnchanged},
            {"nccl:all_reduce", 1, 0, 67e-6, 0, OpChange::kDeleted},
            {"void at::native::vectorized_elementwise_kernel<4, float>(int)", 0, 2, 0, 311e-6, OpChange::kAdded},
            {"aten::empty", 1, 1, 2e-6, 2e-6, OpChange::kUnchanged}};
  nlohmann::json doc = Analyze(false);
  doc["trace_diff"] = TraceDiffJson(d);
  const std::string html = Render(doc, "an.json");
  const std::string fig = Figure(html, "an-json-analyze-diff");
  ASSERT_FALSE(fig.empty());
  // Largest change first; the ProfilerStep row and the unchanged aten::empty left out.
  EXPECT_EQ(BarValues(fig), (std::vector<double>{0, 311e-6, 67e-6, 0}));
  EXPECT_NE(fig.find("at::native::vectorized_elementwise_kernel"), std::string::npos);
  EXPECT_NE(html.find("1 added, 1 deleted, 0 more often, 0 less often, 2 as often."), std::string::npos);
  const AnalyzeDocument back = AnalyzeDocumentFromJson(doc, "an.json");
  ASSERT_TRUE(back.diff.has_value());
  ASSERT_EQ(back.diff->rows.size(), 4u);
  EXPECT_EQ(back.diff->rows[2].change, OpChange::kAdded);
  EXPECT_EQ(back.diff->rows[2].test_count, 2);
  EXPECT_EQ(back.diff->test.selected.iterations, std::vector<int64_t>{1010});
  // No diff: no section.
  EXPECT_EQ(Render(Analyze(false), "an.json").find("Trace diff"), std::string::npos);
}

// Memory events in the document: GPU memory over time, the first rank's reserved series and its
// peak marked, each rank's allocated series, and the predicted peak as a line with a model.
TEST(Report, AnalyzeMemoryOverTime) {
  TraceAnalysis a;
  for (int r = 0; r < 2; ++r) {
    RankAnalysis ra;
    ra.rank = r;
    MemoryTimeline m;
    m.device_id = r;
    m.events = 3;
    m.peak = {-1, 300 + r, 512, 0.5, {"forward", "aten::mm"}};
    m.samples = {{0, 100, 512}, {0.5, 300 + r, 512}, {1.0, 200, 512}};
    ra.memory = m;
    a.ranks.push_back(ra);
  }
  nlohmann::json doc = AnalysisJson(a);
  const std::string fig = Figure(Render(doc, "an.json"), "an-json-analyze-memory");
  ASSERT_FALSE(fig.empty());
  EXPECT_GE(CountOf(fig, "data-series=\"rank 0 reserved\""), 1);
  EXPECT_EQ(CountOf(fig, "data-series=\"rank 1 reserved\""), 0);  // the first rank's only
  EXPECT_GE(CountOf(fig, "data-series=\"rank 1 allocated\""), 1);
  EXPECT_NE(fig.find("rank 0 peak"), std::string::npos);
  EXPECT_EQ(fig.find("predicted peak allocated"), std::string::npos);
  PredictionFigures p;
  p.predicted_peak_allocated_bytes = 400;
  doc["prediction"] = PredictionJson(p);
  const std::string with = Figure(Render(doc, "an.json"), "an-json-analyze-memory");
  EXPECT_NE(with.find("predicted peak allocated"), std::string::npos);
  // No memory events: no chart.
  EXPECT_TRUE(Figure(Render(Analyze(false), "an.json"), "an-json-analyze-memory").empty());
}

// CUDA graphs: per rank the GPU event time from graph replays stacked on the rest.
TEST(Report, AnalyzeCudaGraphShare) {
  TraceAnalysis a;
  RankAnalysis ra;
  ra.graphs.launches = 56;
  ra.graphs.gpu_time_s = 0.084282;
  ra.graphs.gpu_time_share = 0.084282 / 0.318168;
  a.ranks.push_back(ra);
  const std::string fig = Figure(Render(AnalysisJson(a), "an.json"), "an-json-analyze-graphs");
  ASSERT_FALSE(fig.empty());
  EXPECT_NE(fig.find("from CUDA graphs"), std::string::npos);
  EXPECT_NE(fig.find("0.233886"), std::string::npos);  // 0.318168 - 0.084282 s launched one by one, in the table
  EXPECT_TRUE(Figure(Render(Analyze(false), "an.json"), "an-json-analyze-graphs").empty());
}

// HTA's launch queue: per rank and stream the time-weighted mean and the maximum.
TEST(Report, AnalyzeLaunchQueue) {
  TraceAnalysis a;
  RankAnalysis ra;
  QueueLengthRow q;
  q.stream = 7;
  q.count = 6;
  q.max = 3;
  q.time_weighted_mean = 15.0 / 7.0;
  ra.queue_length = {q};
  a.ranks.push_back(ra);
  const std::string fig = Figure(Render(AnalysisJson(a), "an.json"), "an-json-analyze-queue");
  ASSERT_FALSE(fig.empty());
  const std::vector<double> bars = BarValues(fig);
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_NEAR(bars[0], 15.0 / 7.0, 1e-4);  // the SVG's data-value keeps 6 significant digits
  EXPECT_EQ(bars[1], 3);
  EXPECT_NE(fig.find("rank 0 stream 7"), std::string::npos);
  EXPECT_TRUE(Figure(Render(Analyze(false), "an.json"), "an-json-analyze-queue").empty());
}

// HTA's memory-copy bandwidth: per rank and kind the mean and the most GB/s in flight.
TEST(Report, AnalyzeCopyBandwidth) {
  TraceAnalysis a;
  RankAnalysis ra;
  MemoryBandwidthRow m;
  m.kind = "Memcpy HtoD";
  m.count = 3;
  m.mean_gbps = 20;
  m.max_gbps = 30;
  ra.memory_bandwidth = {m};
  a.ranks.push_back(ra);
  const std::string fig = Figure(Render(AnalysisJson(a), "an.json"), "an-json-analyze-copies");
  ASSERT_FALSE(fig.empty());
  EXPECT_EQ(BarValues(fig), (std::vector<double>{20, 30}));
  EXPECT_NE(fig.find("rank 0 Memcpy HtoD"), std::string::npos);
  EXPECT_TRUE(Figure(Render(Analyze(false), "an.json"), "an-json-analyze-copies").empty());
}

// HTA's critical path: per rank its length stacked by bound, the collective wait apart.
TEST(Report, AnalyzeCriticalPath) {
  TraceAnalysis a;
  RankAnalysis ra;
  ra.rank = 3;
  TraceCriticalPath& cp = ra.critical_path.emplace();
  cp.bounds = {{CriticalBound::kCpu, 0.25, 50},
               {CriticalBound::kGpuCommunication, 0.2, 40},
               {CriticalBound::kGpuCompute, 0.05, 10}};
  cp.collective_wait_s = 0.15;
  a.ranks.push_back(ra);
  const std::string fig = Figure(Render(AnalysisJson(a), "an.json"), "an-json-analyze-critical-path");
  ASSERT_FALSE(fig.empty());
  std::vector<double> bars = BarValues(fig);
  std::sort(bars.begin(), bars.end());
  bars.erase(std::remove(bars.begin(), bars.end(), 0.0), bars.end());
  EXPECT_EQ(bars, (std::vector<double>{0.05, 0.05, 0.15, 0.25}));  // 0.2 s of collectives: 0.15 waiting, 0.05 moving
  EXPECT_NE(fig.find("rank 3"), std::string::npos);
  EXPECT_NE(fig.find("waiting for the last rank"), std::string::npos);
  EXPECT_TRUE(Figure(Render(Analyze(false), "an.json"), "an-json-analyze-critical-path").empty());
}

TEST(Report, BadDocumentsNameTheFileAndField) {
  nlohmann::json e = Estimate();
  e["throughput"]["step_time_s"] = "fast";
  try {
    Render(e, "bad.json");
    FAIL() << "no error";
  } catch (const InputError& err) {
    EXPECT_EQ(std::string(err.what()), "bad.json: field 'throughput.step_time_s' is not a number");
  }
  nlohmann::json a = Estimate(), c = {{"schema", "paratune.cluster/1"}};
  EXPECT_THROW(Render(a, "a.json", true, &c), InputError);
  nlohmann::json missing = Estimate();
  missing.erase("stages");
  EXPECT_THROW(Render(missing), InputError);
}

}  // namespace
}  // namespace paratune
