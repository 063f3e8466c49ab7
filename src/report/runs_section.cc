#include "report/runs_section.h"

#include <cmath>

#include <fmt/format.h>

namespace paratune {

std::vector<RunMetric> RunMetrics(const JsonFields& f) {
  std::vector<RunMetric> out;
  const nlohmann::json& a = f.Array("metrics");
  for (size_t i = 0; i < a.size(); ++i) {
    const JsonView m(f, a[i], fmt::format("metrics[{}]", i));
    RunMetric r;
    r.name = m.String("name");
    r.unit = m.String("unit");
    r.description = m.StringOr("description", "");
    const std::string better = m.String("better");
    if (better != "higher" && better != "lower")
      f.Fail(fmt::format("metrics[{}].better", i), "is not \"higher\" or \"lower\"");
    r.higher_is_better = better == "higher";
    const nlohmann::json* term = m.Find("step_term");
    r.step_term = term && term->is_boolean() && term->get<bool>();
    out.push_back(std::move(r));
  }
  return out;
}

double RunFigure(const JsonView& run, const std::string& metric, const std::string& side) {
  const nlohmann::json* figures = run.Find("figures");
  if (!figures || !figures->is_object() || !figures->contains(metric)) return NAN;
  return run.Child("figures").Child(metric).NumberOr(side, NAN);
}

}  // namespace paratune
