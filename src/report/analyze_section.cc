// The paratune.analyze/1 section: each rank's GPU time (compute, non-compute, idle) stacked, the
// kernel categories summed over ranks, the collectives' bus bandwidth by kind beside the link
// ceiling when the analysis had a GPU (analyze --gpu; docs/json.md ceiling_bytes_per_s), the measured step
// beside the predicted one when the analysis had a model, and the straggler table.
#include <map>

#include <fmt/format.h>

#include "report/bar_chart.h"
#include "report/data_table.h"
#include "report/scale.h"
#include "report/sections.h"
#include "report/stacked_bar_chart.h"

namespace paratune {

namespace {

// Sums over the ranks: kernel time by category, and bus bandwidth and its ceiling by collective kind.
struct AnalyzeSums {
  std::map<std::string, double> categories;
  std::map<std::string, std::pair<double, int>> busbw;    // kind -> (sum, ranks with a value)
  std::map<std::string, std::pair<double, int>> ceiling;  // kind -> (sum, ranks with a value)
};

// Adds the bus bandwidth (and ceiling) of rank i's collectives with sized calls to the sums.
void AddAnalyzeCollectives(const JsonFields& f, const JsonView& r, size_t i, AnalyzeSums* sums) {
  if (const nlohmann::json* cols = r.Find("collectives"); cols && cols->is_array())
    for (size_t c = 0; c < cols->size(); ++c) {
      const JsonView cv(f, (*cols)[c], fmt::format("ranks[{}].collectives[{}]", i, c));
      const double bw = cv.NumberOr("busbw_bytes_per_s", 0);
      if (bw > 0) {
        auto& acc = sums->busbw[cv.String("kind")];
        acc.first += bw;
        ++acc.second;
        const double cap = cv.NumberOr("ceiling_bytes_per_s", 0);
        if (cap > 0) {
          auto& ce = sums->ceiling[cv.String("kind")];
          ce.first += cap;
          ++ce.second;
        }
      }
    }
}

// The GPU time per rank chart (compute, non-compute, idle stacked); fills the sums over the ranks.
std::string AnalyzeRankChart(const JsonFields& f, const std::string& id, const nlohmann::json& ranks,
                             AnalyzeSums* sums) {
  BarChartData per_rank;
  per_rank.spec = {id + "-ranks",
                   "GPU time per rank",
                   "Compute, non-compute (communication, memory) and idle GPU time of each rank.",
                   "rank",
                   "time",
                   "",
                   "s"};
  per_rank.series = {{"compute", {}}, {"non-compute", {}}, {"idle", {}}};
  for (size_t i = 0; i < ranks.size(); ++i) {
    const JsonView r(f, ranks[i], fmt::format("ranks[{}]", i));
    per_rank.categories.push_back(
        fmt::format("rank {}", static_cast<int64_t>(r.NumberOr("rank", static_cast<double>(i)))));
    const JsonView t = r.Child("temporal");
    per_rank.series[0].values.push_back(t.Number("compute_s"));
    per_rank.series[1].values.push_back(t.Number("non_compute_s"));
    per_rank.series[2].values.push_back(t.Number("idle_s"));
    if (const nlohmann::json* cats = r.Find("categories"); cats && cats->is_array())
      for (size_t c = 0; c < cats->size(); ++c) {
        const JsonView cv(f, (*cats)[c], fmt::format("ranks[{}].categories[{}]", i, c));
        sums->categories[cv.String("category")] += cv.Number("sum_s");
      }
    AddAnalyzeCollectives(f, r, i, sums);
  }
  return RenderStackedBarChart(per_rank);
}

// The kernel time by category chart, summed over ranks.
std::string AnalyzeCategoryChart(const std::string& id, const std::map<std::string, double>& categories) {
  BarChartData cat;
  cat.spec = {id + "-categories",
              "Kernel time by category",
              "GPU kernel time summed over ranks, by kernel category.",
              "category",
              "time",
              "",
              "s"};
  cat.series = {{"kernel time", {}}};
  for (const auto& [name, s] : categories) {
    cat.categories.push_back(name);
    cat.series[0].values.push_back(s);
  }
  return RenderBarChart(cat);
}

// The mean bus bandwidth per collective kind chart, beside its link ceiling when given; "" without one.
std::string AnalyzeBusbwChart(const std::string& id, const AnalyzeSums& sums) {
  const auto& busbw = sums.busbw;
  const auto& ceiling = sums.ceiling;
  if (busbw.empty()) return "";
  BarChartData bw;
  bw.spec = {id + "-busbw",
             "Collective bus bandwidth",
             "Mean bus bandwidth over ranks of each collective kind with sized calls.",
             "collective",
             "bus bandwidth",
             "",
             "B/s"};
  bw.series = {{"bus bandwidth", {}}};
  // The ceiling, a second series beside each bar: the mean over ranks of the collective's link
  // ceiling (0 for a kind with none, e.g. "other").
  if (!ceiling.empty()) {
    bw.series.push_back({"ceiling", {}});
    bw.spec.description += " Beside each, the link ceiling of the groups it ran in (analyze --gpu).";
  }
  for (const auto& [kind, acc] : busbw) {
    bw.categories.push_back(kind);
    bw.series[0].values.push_back(acc.first / acc.second);
    if (!ceiling.empty()) {
      const auto c = ceiling.find(kind);
      bw.series[1].values.push_back(c == ceiling.end() ? 0.0 : c->second.first / c->second.second);
    }
  }
  std::string html = RenderBarChart(bw);
  if (ceiling.empty()) html += Paragraph("Bus bandwidth ceiling not given (pass --gpu to analyze).");
  return html;
}

// The measured step beside the predicted one, when the analysis had a model; else "".
std::string AnalyzePredictionChart(const JsonFields& f, const std::string& id) {
  const nlohmann::json* p = f.Find("prediction");
  if (!p || !p->is_object()) return "";
  BarChartData pm;
  pm.spec = {id + "-prediction",
             "Measured beside predicted",
             "The measured step time beside the cost model's prediction.",
             "",
             "step time",
             "",
             "s"};
  pm.categories = {"step time"};
  pm.series = {{"measured", {f.Number("prediction.measured_step_time_s")}},
               {"predicted", {f.Number("prediction.predicted_step_time_s")}}};
  return RenderBarChart(pm);
}

// The straggler table, when the analysis has ranks in it; else "".
std::string AnalyzeStragglerTable(const JsonFields& f) {
  const nlohmann::json* st = f.Find("stragglers.ranks");
  if (!st || !st->is_array() || st->empty()) return "";
  DataTable t;
  t.columns = {"rank", "mean step", "robust z", "last arrivals", "caused wait", "straggler", "reason"};
  t.numeric = {true, true, true, true, true, false, false};
  t.css_class = "stragglers";
  for (size_t i = 0; i < st->size(); ++i) {
    const JsonView r(f, (*st)[i], fmt::format("stragglers.ranks[{}]", i));
    const nlohmann::json* flag = r.Find("straggler");
    t.rows.push_back({fmt::format("{}", r.NumberOr("rank", 0)), FormatValue(r.NumberOr("mean_step_time_s", 0), "s"),
                      fmt::format("{:.2f}", r.NumberOr("step_time_robust_z", 0)),
                      fmt::format("{}", r.NumberOr("last_arrivals", 0)),
                      FormatValue(r.NumberOr("caused_wait_s", 0), "s"),
                      flag && flag->is_boolean() && flag->get<bool>() ? "yes" : "no", r.StringOr("reason", "")});
  }
  return "<h3>Stragglers</h3>\n" + RenderTable(t);
}

}  // namespace

std::string RenderAnalyzeSection(const ReportInput& in) {
  const JsonFields f(in.doc, in.path);
  const std::string id = ChartId(in.path, "analyze");
  const nlohmann::json& ranks = f.Array("ranks");
  std::string html = Paragraph(
      fmt::format("{} rank{}, {} events.", ranks.size(), ranks.size() == 1 ? "" : "s", f.NumberOr("events", 0)));
  AnalyzeSums sums;
  html += AnalyzeRankChart(f, id, ranks, &sums);
  html += AnalyzeCategoryChart(id, sums.categories);
  html += AnalyzeBusbwChart(id, sums);
  html += AnalyzePredictionChart(f, id);
  html += AnalyzeStragglerTable(f);
  return html;
}

}  // namespace paratune
