#include "diagnose/diagnose_json.h"

#include <type_traits>

#include <nlohmann/json.hpp>

#include "util/json_two_way.h"
#include "util/timestamp.h"

namespace paratune {
namespace {

constexpr Presence kLater = Presence::kLater;
constexpr Presence kOmitted = Presence::kOmittedWhenEmpty;

// The fields of each struct of paratune.diagnose/1, the one list JsonWriter and JsonReader walk
// (util/json_two_way.h); `T` is const when writing.

// Time ranges as a pair of "YYYY-MM-DD HH:MM:SS" UTC timestamps each (util/timestamp.h).
template <class T, class V>
void TimeRangesField(T& w, V& v) {
  std::vector<std::pair<std::string, std::string>> ranges;
  for (const auto& [a, b] : w.time_ranges_s) ranges.emplace_back(FormatTimestamp(a), FormatTimestamp(b));
  v("time_ranges", ranges, kOmitted);
  if constexpr (!std::is_const_v<T>) {
    w.time_ranges_s.clear();
    for (size_t k = 0; k < ranges.size(); ++k) {
      const auto a = ParseTimestamp(ranges[k].first), b = ParseTimestamp(ranges[k].second);
      if (!a || !b) v.view().Fail("time_ranges[" + std::to_string(k) + "]", "is not a pair of timestamps");
      w.time_ranges_s.emplace_back(*a, *b);
    }
  }
}

// Where a finding is: each member only when it holds something.
template <class T, class V>
void WhereFields(T& w, V& v) {
  v("iterations", w.iterations, kOmitted);
  TimeRangesField(w, v);
  v("gpus", w.gpus, kOmitted);
  v("gpu_pairs", w.gpu_pairs, kOmitted);
  v("lines", w.lines, kOmitted);
  v("period_iterations", w.period_iterations, kOmitted);
  v("period_s", w.period_s, kOmitted);
}

template <class T, class V>
void EvidenceFields(T& e, V& v) {
  v("name", e.name);
  v.Nullable("value", e.value);
  v("unit", e.unit);
  v("source", e.source);
}

template <class T, class V>
void FindingFields(T& f, V& v) {
  v("rule", f.rule);
  v("severity", f.severity, kSeverityNames);
  v("title", f.title);
  v("message", f.message);
  v.Nullable("loss_fraction", f.loss_fraction);
  v("fix", f.fix);
  v.List("evidence", f.evidence, [](auto& x, auto& w) { EvidenceFields(x, w); });
  v.Nested("where", f.where, [](auto& x, auto& w) { WhereFields(x, w); });
}

template <class T, class V>
void ThroughputFields(T& t, V& v) {
  v("path", t.path);
  v("quantity", t.quantity);
  v.Nullable("iterations", t.iterations);
  v.Nullable("values", t.values);
  v.Nullable("save_iterations", t.save_iterations, kLater);
}

template <class T, class V>
void TelemetryFields(T& t, V& v) {
  v("path", t.path);
  v("gpu", t.gpu);
  v.Nullable("time_s", t.time_s);
  v.Nullable("sm_clock_hz", t.sm_clock_hz);
  v.Nullable("temperature_c", t.temperature_c);
}

template <class T, class V>
void SeriesFields(T& s, V& v) {
  v.List("throughput", s.throughput, [](auto& x, auto& w) { ThroughputFields(x, w); });
  v.List(
      "telemetry", s.telemetry, [](auto& x, auto& w) { TelemetryFields(x, w); }, kLater);
}

template <class T, class V>
void InputFields(T& i, V& v) {
  v("path", i.path);
  v("kind", i.kind, kInputKindNames);
}

template <class T, class V>
void DiagnosisFields(T& d, V& v) {
  v.List(
      "inputs", d.inputs, [](auto& x, auto& w) { InputFields(x, w); }, kLater);
  v("rules", d.rules_run, kLater);
  v.List("findings", d.findings, [](auto& x, auto& w) { FindingFields(x, w); });
  v.Nested(
      "series", d.series, [](auto& x, auto& w) { SeriesFields(x, w); }, kLater);
}

}  // namespace

nlohmann::json DiagnosisJson(const Diagnosis& d) {
  return WriteDocument(d, kDiagnoseSchema, [](const auto& x, JsonWriter& w) { DiagnosisFields(x, w); });
}

Diagnosis DiagnosisFromJson(const nlohmann::json& doc, const std::string& where) {
  return ReadDocument<Diagnosis>(doc, where, kDiagnoseSchema, [](auto& x, auto& r) { DiagnosisFields(x, r); });
}

}  // namespace paratune
