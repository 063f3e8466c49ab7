// The paratune.runs.baselines/1 section: the baseline run of each scope (cluster and model, or
// a named scope), the run that `runs compare NAME` measures a new run against.
#include <fmt/format.h>

#include "report/data_table.h"
#include "report/runs_section.h"
#include "report/sections.h"

namespace paratune {

std::string RenderRunsBaselinesSection(const ReportInput& in) {
  const std::vector<BaselineEntry> b = ReadRunsBaselines(in.doc, in.path).baselines;
  DataTable t;
  t.columns = {"scope", "baseline run", "set (UTC)"};
  t.css_class = "baselines";
  for (const BaselineEntry& x : b) t.rows.push_back({x.scope, x.run, x.set_utc});
  return Paragraph(fmt::format("{} baseline{}.", b.size(), b.size() == 1 ? "" : "s")) + RenderTable(t);
}

}  // namespace paratune
