// The run registry's sections (runs_list_section.cc, run_show_section.cc,
// runs_compare_section.cc, runs_baselines_section.cc) and the pages of `serve --db`
// (registry_pages.cc) on hand-made documents of the schemas in docs/json.md, written by the
// registry's own field lists (schema/registry_documents.h) so they are whole: the values drawn
// are the documents' values, and bad documents are one-line errors naming the file and field.
#include <gtest/gtest.h>

#include "report/chart_test_util.h"
#include "report/registry_pages.h"
#include "report/report.h"
#include "report/runs_section.h"
#include "util/error.h"
#include "util/json_two_way.h"
#include "util/test_util.h"

namespace paratune {
namespace {

using chart_test::Elements;

// A subset of the registry's metric table: headline figures and three step-time terms.
std::vector<RegistryMetric> Metrics() {
  return {{"mfu", "fraction", Better::kHigher, false, "model FLOPs utilisation"},
          {"tokens_per_s_per_gpu", "tokens/s", Better::kHigher, false, "tokens"},
          {"step_time_s", "s", Better::kLower, false, "step"},
          {"compute_s", "s", Better::kLower, true, "compute"},
          {"exposed_tp_comm_s", "s", Better::kLower, true, "tp"},
          {"bubble_s", "s", Better::kLower, true, "bubble"}};
}

RunSummary RunOf(const std::string& name, const std::string& when, double tps_measured, double tps_predicted,
                 double mfu) {
  return {name,
          when,
          "64xH100",
          "llama-3.1-70b",
          "H100",
          64,
          "megatron 0.9",
          {{"team", "pretrain"}},
          {{"mfu", {mfu, NAN}},
           {"tokens_per_s_per_gpu", {tps_measured, tps_predicted}},
           {"step_time_s", {2.0, 1.8}},
           {"compute_s", {1.5, 1.4}},
           {"exposed_tp_comm_s", {0.25, 0.2}},
           {"bubble_s", {0.25, 0.2}}}};
}

// The documents as the registry writes them (runs/runs_json.cc): by their field lists.
nlohmann::json ListDoc(const RunsListDocument& d) {
  return WriteDocument(d, kRunsListSchema, [](const auto& x, auto& w) { registry_fields::ListFields(x, w); });
}
nlohmann::json ShowDoc(const RunShowDocument& d) {
  return WriteDocument(d, kRunsShowSchema, [](const auto& x, auto& w) { registry_fields::ShowFields(x, w); });
}
nlohmann::json CompareDoc(const RunsCompareDocument& d) {
  return WriteDocument(d, kRunsCompareSchema, [](const auto& x, auto& w) { registry_fields::CompareFields(x, w); });
}
nlohmann::json BaselinesDoc(const RunsBaselinesDocument& d) {
  return WriteDocument(d, kRunsBaselinesSchema, [](const auto& x, auto& w) { registry_fields::BaselinesFields(x, w); });
}

RunShowDocument Show(const std::string& name) {
  RunShowDocument s;
  s.run = RunOf(name, "2026-11-01T10:00:00.000Z", 1000, 900, 0.40);
  s.metrics = Metrics();
  return s;
}

nlohmann::json List() {
  return ListDoc({Metrics(),
                  2,
                  {RunOf("b", "2026-11-02T10:00:00.000Z", 1100, 1000, 0.44),
                   RunOf("a", "2026-11-01T10:00:00.000Z", 1000, 900, 0.40)}});
}

std::string RenderRuns(const nlohmann::json& doc, const std::string& path) {
  return RenderReport({{path, doc}}, ReportOptions{});
}

TEST(RunsSections, ListDrawsEachRunOnTheTrendOldestFirst) {
  const std::string html = RenderRuns(List(), "runs.json");
  const auto paths = Elements(html, "path", "series");
  ASSERT_EQ(paths.size(), 2u);  // tokens/s and MFU trends, one scope each
  EXPECT_EQ(paths[0].at("data-series"), "64xH100 · llama-3.1-70b");
  EXPECT_EQ(paths[0].at("data-points"), "2");
  // The table: one row per run, newest first, measured then predicted tokens/s.
  const size_t table = html.find("class=\"runs\"");
  ASSERT_NE(table, std::string::npos);
  const std::string rows = html.substr(table);
  EXPECT_LT(rows.find("<td>b</td>"), rows.find("<td>a</td>"));
  EXPECT_NE(rows.find("team=pretrain"), std::string::npos);
  EXPECT_NE(rows.find("44%"), std::string::npos);  // run b's MFU
  // The trend's data table keeps the x of run b: one day after run a.
  EXPECT_NE(html.find("86400"), std::string::npos);
  EXPECT_NE(html.find("2 runs, newest first."), std::string::npos);
}

TEST(RunsSections, ListSaysHowManyRunsTheLimitLeftOut) {
  nlohmann::json list = List();
  list["total"] = 82;
  EXPECT_NE(RenderRuns(list, "runs.json").find("2 of 82 runs, newest first (runs list --limit shows more)."),
            std::string::npos);
  list["total"] = 2;
  EXPECT_NE(RenderRuns(list, "runs.json").find("<p>2 runs, newest first.</p>"), std::string::npos);
  list.erase("total");  // older files: the runs listed are all there are
  EXPECT_NE(RenderRuns(list, "runs.json").find("<p>2 runs, newest first.</p>"), std::string::npos);
  list["total"] = 1;  // fewer than listed
  EXPECT_CONTAINS(InputErrorOf([&] { RenderRuns(list, "runs.json"); }), "total");
  EXPECT_CONTAINS(InputErrorOf([&] { RenderRuns(list, "runs.json"); }),
                  "must be a whole number of runs, at least the 2 listed");
  list["total"] = 2.5;  // the reader's own check (util/json_two_way.h)
  EXPECT_CONTAINS(InputErrorOf([&] { RenderRuns(list, "runs.json"); }), "runs.json: field 'total' is not an integer");
}

TEST(RunsSections, ShowStacksMeasuredBesidePredictedAndGivesTheError) {
  RunShowDocument show = Show("a");
  show.series = {{"tokens_per_s_per_gpu", "abc", {10, 20, 30}, {990, 1000, 1010}}};
  show.findings = {{"pipeline_bubble", "warning", "bubble 12%", 0.125}};
  show.sources = {{"0123456789abcdef0123", "paratune.analyze/1", "a.json", "x"}};
  const std::string html = RenderRuns(ShowDoc(show), "show.json");
  const auto bars = Elements(html, "rect", "bar");
  // Two stacks (measured, predicted) of the three step terms.
  ASSERT_EQ(bars.size(), 6u);
  double measured = 0, predicted = 0;
  for (const auto& b : bars)
    (b.at("data-category") == "measured" ? measured : predicted) += std::stod(b.at("data-value"));
  EXPECT_DOUBLE_EQ(measured, 2.0);
  EXPECT_DOUBLE_EQ(predicted, 1.8);
  EXPECT_NE(html.find("-10.0%"), std::string::npos);  // tokens/s predicted 900 against 1000 measured
  EXPECT_EQ(Elements(html, "path", "series").at(0).at("data-points"), "3");
  EXPECT_NE(html.find("12.5%"), std::string::npos);              // the finding's loss
  EXPECT_NE(html.find("0123456789abcdef<"), std::string::npos);  // sha256 shortened to 16
}

nlohmann::json Compare() {
  return CompareDoc({Metrics(),
                     "a",
                     "b",
                     "cluster=64xH100 model=llama-3.1-70b",
                     {{"tokens_per_s_per_gpu", "tokens/s", Better::kHigher, true, 1000, 1100, 100, 0.1},
                      {"step_time_s", "s", Better::kLower, true, 2.0, 2.5, 0.5, 0.25}},
                     ComparedBreakdown{true, 0.5, {{"exposed_tp_comm_s", 0.625, 1.25}, {"bubble_s", -0.125, -0.25}}}});
}

TEST(RunsSections, CompareRanksTheTermsThatMovedAndMarksBetterAndWorse) {
  const std::string html = RenderRuns(Compare(), "cmp.json");
  const auto bars = Elements(html, "rect", "bar");
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_EQ(bars[0].at("data-category"), "exposed_tp_comm_s");
  EXPECT_EQ(bars[0].at("data-value"), "0.625");
  EXPECT_EQ(bars[1].at("data-value"), "-0.125");
  EXPECT_NE(html.find("125.0%"), std::string::npos);
  EXPECT_NE(html.find("the baseline of cluster=64xH100 model=llama-3.1-70b"), std::string::npos);
  const std::string diffs = html.substr(html.find("class=\"figure-diffs\""));
  EXPECT_NE(diffs.find("+10.0%"), std::string::npos);
  // tokens/s up is better, step time up is worse.
  EXPECT_LT(diffs.find("better"), diffs.find("worse"));
}

TEST(RunsSections, BadDocumentsNameTheFileAndField) {
  nlohmann::json list = List();
  list["metrics"][1]["better"] = "sideways";
  EXPECT_CONTAINS(InputErrorOf([&] { RenderRuns(list, "runs.json"); }), "runs.json");
  EXPECT_CONTAINS(InputErrorOf([&] { RenderRuns(list, "runs.json"); }), "metrics[1].better");
  list = List();
  list["runs"][0]["created_utc"] = "yesterday";
  EXPECT_CONTAINS(InputErrorOf([&] { RenderRuns(list, "runs.json"); }), "runs[0].created_utc");
  nlohmann::json cmp = Compare();
  cmp["breakdown"]["terms"][0]["delta_s"] = "a lot";
  EXPECT_CONTAINS(InputErrorOf([&] { RenderRuns(cmp, "cmp.json"); }), "breakdown.terms[0].delta_s");
}

RegistryPages FakeRegistry() {
  RegistryPages p;
  p.where = "postgresql://team:***@db/runs";
  p.list = [] { return List(); };
  p.baselines = [] { return BaselinesDoc({Metrics(), {{"cluster=64xH100 model=llama-3.1-70b", "a", "t"}}}); };
  p.show = [](const std::string& name) {
    if (name != "a" && name != "b") throw InputError("no run named '" + name + "'");
    return ShowDoc(Show(name));
  };
  p.compare = [](const std::string& a, const std::string& b) {
    if (b.empty() && a == "a") throw InputError("no baseline other than itself");
    nlohmann::json c = Compare();
    c["a"] = b.empty() ? "a" : a;
    c["b"] = b.empty() ? a : b;
    return c;
  };
  return p;
}

TEST(RegistryPages, ListShowAndCompareWithLinksBetweenThem) {
  const RegistryPages reg = FakeRegistry();
  const RegistryPage list = RenderRegistryPage(reg, "/runs", {});
  EXPECT_EQ(list.status, 200);
  EXPECT_NE(list.html.find("<a href=\"/runs/b\">b</a>"), std::string::npos);
  EXPECT_NE(list.html.find("class=\"baselines\""), std::string::npos);
  EXPECT_NE(list.html.find("postgresql://team:***@db/runs"), std::string::npos);
  const RegistryPage b = RenderRegistryPage(reg, "/runs/b", {});
  EXPECT_EQ(b.status, 200);
  // b has a baseline (a): its page adds the comparison and links to it.
  EXPECT_NE(b.html.find("/runs/compare?a=b"), std::string::npos);
  EXPECT_NE(b.html.find("Which term moved"), std::string::npos);
  const RegistryPage a = RenderRegistryPage(reg, "/runs/a", {});
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.html.find("Which term moved"), std::string::npos);  // a is the baseline itself
  const RegistryPage cmp = RenderRegistryPage(reg, "/runs/compare", {{"a", "a"}, {"b", "b"}});
  EXPECT_EQ(cmp.status, 200);
  EXPECT_NE(cmp.html.find("Which term moved"), std::string::npos);
}

TEST(RegistryPages, UnknownRunsAndBadQueriesAreAnsweredNotThrown) {
  const RegistryPages reg = FakeRegistry();
  EXPECT_EQ(RenderRegistryPage(reg, "/runs/nope", {}).status, 404);
  EXPECT_EQ(RenderRegistryPage(reg, "/runs/a/b", {}).status, 404);
  EXPECT_EQ(RenderRegistryPage(reg, "/runs/compare", {}).status, 400);
  RegistryPages down = reg;
  down.list = []() -> nlohmann::json { throw InputError("postgresql://team:***@db/runs: connection refused"); };
  const RegistryPage p = RenderRegistryPage(down, "/runs", {});
  EXPECT_EQ(p.status, 503);
  EXPECT_NE(p.html.find("connection refused"), std::string::npos);
}

}  // namespace
}  // namespace paratune
