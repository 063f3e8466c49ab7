#include <cctype>

#include <fmt/format.h>

#include "report/report.h"
#include "report/sections.h"
#include "report/svg.h"
#include "analysis/analysis_json.h"
#include "diagnose/diagnose_json.h"
#include "plan/plan_json.h"
#include "scheduling/cluster_json.h"
#include "schema/registry_documents.h"
#include "step/estimate_json.h"
#include "step/simulate_json.h"

namespace paratune {

const std::vector<SectionKind>& SectionKinds() {
  static const std::vector<SectionKind> kKinds = {
      {kPlanSchema, "Plan", &RenderPlanSection},
      {kEstimateSchema, "Estimate", &RenderEstimateSection},
      {kSimulateSchema, "Simulation", &RenderSimulateSection},
      {kAnalyzeSchema, "Trace analysis", &RenderAnalyzeSection},
      {kDiagnoseSchema, "Diagnosis", &RenderDiagnoseSection},
      {kClusterSchema, "Cluster replay", &RenderClusterSection},
      {kRunsListSchema, "Recorded runs", &RenderRunsListSection},
      {kRunsShowSchema, "Recorded run", &RenderRunShowSection},
      {kRunsCompareSchema, "Run comparison", &RenderRunsCompareSection},
      {kRunsBaselinesSchema, "Baselines", &RenderRunsBaselinesSection},
  };
  return kKinds;
}

const SectionKind* FindSectionKind(const std::string& schema) {
  for (const auto& k : SectionKinds())
    if (schema == k.schema) return &k;
  return nullptr;
}

std::string LayoutLabel(const Layout& l, const Training& t) {
  std::string s = fmt::format("tp {} pp {}", l.tp, l.pp);
  if (l.vp > 1) s += fmt::format(" vp {}", l.vp);
  if (l.cp > 1) s += fmt::format(" cp {}", l.cp);
  if (l.ep > 1) s += fmt::format(" ep {}", l.ep);
  s += fmt::format(" dp {} zero {} mbs {}", l.dp, l.zero, l.mbs);
  if (l.recompute != Recompute::kNone) s += std::string(" ") + RecomputeName(l.recompute);
  return s + " " + PrecisionName(t.precision);
}

std::string LayoutLabel(const JsonView& layout) {
  Layout l;
  Training t;
  ReadLayout(layout, l, t);
  return LayoutLabel(l, t);
}

std::string ChartId(const std::string& path, const std::string& chart) {
  std::string base = path;
  const size_t slash = base.find_last_of('/');
  if (slash != std::string::npos) base = base.substr(slash + 1);
  std::string id;
  for (char c : base + "-" + chart) {
    const unsigned char u = static_cast<unsigned char>(c);
    id += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-';
  }
  return id;
}

std::string Paragraph(const std::string& text) { return "<p>" + XmlEscape(text) + "</p>\n"; }

}  // namespace paratune
