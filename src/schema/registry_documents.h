// The run registry's --json documents (docs/json.md, docs/runs.md): paratune.runs.list/1,
// .show/1, .compare/1 and .baselines/1 as structs, each with one field list that the registry
// (runs/runs_json.h) writes and the report (report/runs_*_section.cc), which sits below the
// registry, reads. Every document but record/1 carries the registry's metric table (`metrics[]`,
// written once in runs/run_record.h kMetrics), so a reader needs no copy of it. The names of the
// documents are here too.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/enum_names.h"
#include "util/json_two_way.h"

namespace paratune {

inline constexpr const char* kRunsRecordSchema = "paratune.runs.record/1";
inline constexpr const char* kRunsListSchema = "paratune.runs.list/1";
inline constexpr const char* kRunsShowSchema = "paratune.runs.show/1";
inline constexpr const char* kRunsCompareSchema = "paratune.runs.compare/1";
inline constexpr const char* kRunsBaselinesSchema = "paratune.runs.baselines/1";

// Which way a metric improves.
enum class Better : uint8_t { kHigher, kLower };
inline constexpr EnumNames<Better, 2> kBetterNames{{{{Better::kHigher, "higher"}, {Better::kLower, "lower"}}}};

// One row of the metric table: a figure's name (the key of `figures`), unit, direction, whether
// it is a term of the step-time breakdown (seconds per step) and what it is.
struct RegistryMetric {
  std::string name, unit;
  Better better = Better::kHigher;
  bool step_term = false;
  std::string description;
};

// One figure of a run: measured and predicted, NaN where not known (null in the JSON).
struct MeasuredPredicted {
  double measured = std::nan("");
  double predicted = std::nan("");
};

struct RunFinding {
  std::string rule, severity, title;
  double loss_fraction = 0;
};

// A series over iterations: `kind` is a metric-like name (step_time_s, tokens_per_s_per_gpu,
// tflops_per_gpu, iterations_per_s, mfu), x the iteration (or the line's timestamp where a log
// has no iteration numbers), y the value in the unit the kind names.
struct RunSeries {
  std::string kind;
  std::string source;  // the sha256 of the file it came from
  std::vector<double> x, y;
};

// The cluster simulator's summary of one scheduling policy (paratune.cluster/1 policies[]).
// The figures are written once, in runs/run_record.h kPolicyMetrics.
struct PolicySummary {
  std::string policy;
  std::vector<std::pair<std::string, double>> figures;  // (kPolicyMetrics name, value)
};

// A file a run was recorded from.
struct RunSource {
  std::string sha256;        // of the file's bytes (hex)
  std::string schema;        // "paratune.analyze/1", ..., "training_log", "record" (RecordRun)
  std::string path;          // as given
  std::string recorded_utc;  // ISO 8601, UTC
};

// A run as every document lists it: who and where, its tags and its figures by metric name.
struct RunSummary {
  std::string name;
  std::string created_utc;  // ISO 8601 UTC with milliseconds: "2026-12-01T21:10:00.123Z"
  std::string cluster, model, gpu;
  int64_t gpus = 0;
  std::string software;
  std::vector<std::pair<std::string, std::string>> tags;           // by key
  std::vector<std::pair<std::string, MeasuredPredicted>> figures;  // by metric name

  // The figure of `metric`, both sides NaN when the run has none.
  MeasuredPredicted Figure(const std::string& metric) const {
    for (const auto& [name, f] : figures)
      if (name == metric) return f;
    return {};
  }
};

// paratune.runs.list/1: the newest runs that matched, of `total`.
struct RunsListDocument {
  std::vector<RegistryMetric> metrics;
  int64_t total = kTotalAbsent;  // absent in older files: read as runs.size()
  static constexpr int64_t kTotalAbsent = std::numeric_limits<int64_t>::min();
  std::vector<RunSummary> runs;
};

// paratune.runs.show/1: one run whole.
struct RunShowDocument {
  RunSummary run;
  std::vector<RegistryMetric> metrics;
  std::string content_hash;  // sha256 over the run's sources' sha256s, sorted
  nlohmann::json layout;     // paratune.estimate/1's layout object, or null
  nlohmann::json scenario;   // the scenario it was estimated for, or null
  std::vector<RunSource> sources;
  std::vector<RunFinding> findings;
  std::vector<RunSeries> series;
  std::vector<PolicySummary> policies;
};

// One figure of two runs side by side.
struct FigureComparison {
  std::string metric, unit;
  Better better = Better::kHigher;
  bool measured = false;  // the side compared: measured where both runs have it, else predicted
  double a = std::nan(""), b = std::nan(""), abs_diff = std::nan(""), rel_diff = std::nan("");
};

// One step-time term that moved, b minus a.
struct TermMoveEntry {
  std::string metric;
  double delta_s = 0;
  double share = std::nan("");  // of the step-time change; NaN when that is 0
};

// The step-time breakdown compared, on one side.
struct ComparedBreakdown {
  bool measured = false;
  double step_time_delta_s = std::nan("");
  std::vector<TermMoveEntry> terms;  // largest move first
};

// paratune.runs.compare/1: run b against run a (or against its baseline).
struct RunsCompareDocument {
  std::vector<RegistryMetric> metrics;
  std::string a, b;
  std::string baseline_scope;  // null when b was not compared against a baseline
  std::vector<FigureComparison> figures;
  std::optional<ComparedBreakdown> breakdown;  // null when no step time is on a common side
};

struct BaselineEntry {
  std::string scope, run, set_utc;
};

// paratune.runs.baselines/1.
struct RunsBaselinesDocument {
  std::vector<RegistryMetric> metrics;
  std::vector<BaselineEntry> baselines;
};

// The field lists, one per struct (util/json_two_way.h).
namespace registry_fields {

inline const EnumNames<bool, 2> kSideNames{{{{true, "measured"}, {false, "predicted"}}}};

template <class M, class V>
void MetricFields(M& m, V& v) {
  v("name", m.name);
  v("unit", m.unit);
  v("better", m.better, kBetterNames);
  v("step_term", m.step_term);
  v("description", m.description);
}

template <class F, class V>
void FigureFields(F& f, V& v) {
  v.Nullable("measured", f.measured);
  v.Nullable("predicted", f.predicted);
}

template <class R, class V>
void SummaryFields(R& r, V& v) {
  v("name", r.name);
  v("created_utc", r.created_utc);
  v("cluster", r.cluster);
  v("model", r.model);
  v("gpu", r.gpu);
  v("gpus", r.gpus);
  v("software", r.software);
  v.Members("tags", r.tags);
  v.Members("figures", r.figures, [](auto& x, auto& w) { FigureFields(x, w); });
}

template <class D, class V>
void ListFields(D& d, V& v) {
  v.List("metrics", d.metrics, [](auto& x, auto& w) { MetricFields(x, w); });
  v("total", d.total, Presence::kLater);
  v.List("runs", d.runs, [](auto& x, auto& w) { SummaryFields(x, w); });
}

template <class S, class V>
void SourceFields(S& s, V& v) {
  v("sha256", s.sha256);
  v("schema", s.schema);
  v("path", s.path);
  v("recorded_utc", s.recorded_utc);
}

template <class F, class V>
void FindingFields(F& f, V& v) {
  v("rule", f.rule);
  v("severity", f.severity);
  v("title", f.title);
  v.Nullable("loss_fraction", f.loss_fraction);
}

template <class S, class V>
void SeriesFields(S& s, V& v) {
  v("kind", s.kind);
  v("source", s.source);
  v("x", s.x);
  v("y", s.y);
}

template <class P, class V>
void PolicyFields(P& p, V& v) {
  v("policy", p.policy);
  v.Members("figures", p.figures);
}

template <class D, class V>
void ShowFields(D& d, V& v) {
  SummaryFields(d.run, v);
  v.List("metrics", d.metrics, [](auto& x, auto& w) { MetricFields(x, w); });
  v("content_hash", d.content_hash);
  v("layout", d.layout);
  v("scenario", d.scenario);
  v.List("sources", d.sources, [](auto& x, auto& w) { SourceFields(x, w); });
  v.List("findings", d.findings, [](auto& x, auto& w) { FindingFields(x, w); });
  v.List("series", d.series, [](auto& x, auto& w) { SeriesFields(x, w); });
  v.List("policies", d.policies, [](auto& x, auto& w) { PolicyFields(x, w); });
}

template <class F, class V>
void FigureComparisonFields(F& f, V& v) {
  v("metric", f.metric);
  v("unit", f.unit);
  v("better", f.better, kBetterNames);
  v("side", f.measured, kSideNames);
  v.Nullable("a", f.a);
  v.Nullable("b", f.b);
  v.Nullable("abs_diff", f.abs_diff);
  v.Nullable("rel_diff", f.rel_diff);
}

template <class T, class V>
void TermMoveFields(T& t, V& v) {
  v("metric", t.metric);
  v.Nullable("delta_s", t.delta_s);
  v.Nullable("share", t.share);
}

template <class B, class V>
void BreakdownFields(B& b, V& v) {
  v("side", b.measured, kSideNames);
  v.Nullable("step_time_delta_s", b.step_time_delta_s);
  v.List("terms", b.terms, [](auto& x, auto& w) { TermMoveFields(x, w); });
}

template <class D, class V>
void CompareFields(D& d, V& v) {
  v.List("metrics", d.metrics, [](auto& x, auto& w) { MetricFields(x, w); });
  v("a", d.a);
  v("b", d.b);
  v.Nullable("baseline_scope", d.baseline_scope);
  v.List("figures", d.figures, [](auto& x, auto& w) { FigureComparisonFields(x, w); });
  v.Maybe("breakdown", d.breakdown, [](auto& x, auto& w) { BreakdownFields(x, w); });
}

template <class B, class V>
void BaselineFields(B& b, V& v) {
  v("scope", b.scope);
  v("run", b.run);
  v("set_utc", b.set_utc);
}

template <class D, class V>
void BaselinesFields(D& d, V& v) {
  v.List("metrics", d.metrics, [](auto& x, auto& w) { MetricFields(x, w); });
  v.List("baselines", d.baselines, [](auto& x, auto& w) { BaselineFields(x, w); });
}

}  // namespace registry_fields

}  // namespace paratune
