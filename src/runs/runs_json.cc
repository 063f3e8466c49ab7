#include "runs/runs_json.h"

#include <nlohmann/json.hpp>

#include "schema/registry_documents.h"

namespace paratune {
namespace {

// The metric table (kMetrics) every document but record/1 carries.
std::vector<RegistryMetric> Metrics() {
  std::vector<RegistryMetric> out;
  for (const auto& m : kMetrics) out.push_back({m.name, m.unit, m.better, m.step_term, m.description});
  return out;
}

RunSummary SummaryOf(const RunRecord& r) {
  RunSummary s{r.name, r.created_utc, r.cluster, r.model, r.gpu, r.gpus, r.software, r.tags, {}};
  for (const auto& m : kMetrics) s.figures.emplace_back(m.name, MeasuredPredicted{r[m.id].measured, r[m.id].predicted});
  return s;
}

nlohmann::json StoredJson(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json::parse(text, nullptr, false);
}

}  // namespace

nlohmann::json RecordResultJson(const RecordResult& r, const std::string& where) {
  return {{"schema", kRunsRecordSchema},
          {"db", where},
          {"name", r.name},
          {"created", r.created},
          {"files_added", r.files_added},
          {"files_unchanged", r.files_unchanged}};
}

nlohmann::json RunListJson(const std::vector<RunRecord>& runs, std::optional<int64_t> total) {
  RunsListDocument d{Metrics(), total.value_or(static_cast<int64_t>(runs.size())), {}};
  for (const auto& r : runs) d.runs.push_back(SummaryOf(r));
  return WriteDocument(d, kRunsListSchema, [](const auto& x, auto& w) { registry_fields::ListFields(x, w); });
}

nlohmann::json RunShowJson(const RunRecord& r) {
  const RunShowDocument d{
      SummaryOf(r), Metrics(), r.content_hash, StoredJson(r.layout_json), StoredJson(r.scenario_json), r.sources,
      r.findings,   r.series,  r.policies};
  return WriteDocument(d, kRunsShowSchema, [](const auto& x, auto& w) { registry_fields::ShowFields(x, w); });
}

nlohmann::json ComparisonJson(const Comparison& c) {
  RunsCompareDocument d{Metrics(), c.a.name, c.b.name, c.baseline_scope, {}, std::nullopt};
  for (const auto& f : c.figures) {
    const MetricInfo& info = InfoOf(f.metric);
    d.figures.push_back({info.name, info.unit, info.better, f.measured, f.a, f.b, f.abs_diff, f.rel_diff});
  }
  if (HasFigure(c.step_delta_s)) {
    ComparedBreakdown& b = d.breakdown.emplace(ComparedBreakdown{c.terms_measured, c.step_delta_s, {}});
    for (const auto& t : c.terms) b.terms.push_back({InfoOf(t.metric).name, t.delta_s, t.share});
  }
  return WriteDocument(d, kRunsCompareSchema, [](const auto& x, auto& w) { registry_fields::CompareFields(x, w); });
}

nlohmann::json BaselinesJson(const std::vector<Baseline>& b) {
  RunsBaselinesDocument d{Metrics(), {}};
  for (const auto& x : b) d.baselines.push_back({x.scope, x.run, x.set_utc});
  return WriteDocument(d, kRunsBaselinesSchema, [](const auto& x, auto& w) { registry_fields::BaselinesFields(x, w); });
}

}  // namespace paratune
