// The paratune.runs.baselines/1 section: the baseline run of each scope (cluster and model, or
// a named scope), the run that `runs compare NAME` measures a new run against.
#include <fmt/format.h>

#include "report/data_table.h"
#include "report/sections.h"

namespace paratune {

std::string RenderRunsBaselinesSection(const ReportInput& in) {
  const JsonFields f(in.doc, in.path);
  DataTable t;
  t.columns = {"scope", "baseline run", "set (UTC)"};
  t.css_class = "baselines";
  const nlohmann::json& b = f.Array("baselines");
  for (size_t i = 0; i < b.size(); ++i) {
    const JsonView v(f, b[i], fmt::format("baselines[{}]", i));
    t.rows.push_back({v.String("scope"), v.String("run"), v.StringOr("set_utc", "")});
  }
  return Paragraph(fmt::format("{} baseline{}.", b.size(), b.size() == 1 ? "" : "s")) + RenderTable(t);
}

}  // namespace paratune
