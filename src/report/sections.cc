#include <cctype>

#include <fmt/format.h>

#include "report/report.h"
#include "report/sections.h"
#include "report/svg.h"

namespace paratune {

const std::vector<SectionKind>& SectionKinds() {
  static const std::vector<SectionKind> kKinds = {
      {"paratune.plan/1", "Plan", &RenderPlanSection},
      {"paratune.estimate/1", "Estimate", &RenderEstimateSection},
      {"paratune.simulate/1", "Simulation", &RenderSimulateSection},
      {"paratune.analyze/1", "Trace analysis", &RenderAnalyzeSection},
      {"paratune.diagnose/1", "Diagnosis", &RenderDiagnoseSection},
      {"paratune.cluster/1", "Cluster replay", &RenderClusterSection},
      {"paratune.runs.list/1", "Recorded runs", &RenderRunsListSection},
      {"paratune.runs.show/1", "Recorded run", &RenderRunShowSection},
      {"paratune.runs.compare/1", "Run comparison", &RenderRunsCompareSection},
      {"paratune.runs.baselines/1", "Baselines", &RenderRunsBaselinesSection},
  };
  return kKinds;
}

const SectionKind* FindSectionKind(const std::string& schema) {
  for (const auto& k : SectionKinds())
    if (schema == k.schema) return &k;
  return nullptr;
}

std::string LayoutLabel(const JsonView& l) {
  std::string s = fmt::format("tp {} pp {}", l.NumberOr("tp", 1), l.NumberOr("pp", 1));
  if (l.NumberOr("vp", 1) > 1) s += fmt::format(" vp {}", l.Number("vp"));
  if (l.NumberOr("cp", 1) > 1) s += fmt::format(" cp {}", l.Number("cp"));
  if (l.NumberOr("ep", 1) > 1) s += fmt::format(" ep {}", l.Number("ep"));
  s += fmt::format(" dp {}", l.NumberOr("dp", 1));
  if (l.Find("zero")) s += fmt::format(" zero {}", l.NumberOr("zero", 0));
  if (l.Find("micro_batch")) s += fmt::format(" mbs {}", l.NumberOr("micro_batch", 1));
  const std::string rc = l.StringOr("recompute", "none");
  if (rc != "none") s += " " + rc;
  const std::string prec = l.StringOr("precision", "");
  if (!prec.empty()) s += " " + prec;
  return s;
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
