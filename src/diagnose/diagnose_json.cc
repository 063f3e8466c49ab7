#include "diagnose/diagnose_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "util/timestamp.h"

namespace paratune {
namespace {

nlohmann::json Num(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

nlohmann::json Where(const FindingWhere& w) {
  nlohmann::json j = nlohmann::json::object();
  if (!w.iterations.empty()) j["iterations"] = w.iterations;
  if (!w.time_ranges_s.empty()) {
    nlohmann::json r = nlohmann::json::array();
    for (const auto& [a, b] : w.time_ranges_s) r.push_back({FormatTimestamp(a), FormatTimestamp(b)});
    j["time_ranges"] = std::move(r);
  }
  if (!w.gpus.empty()) j["gpus"] = w.gpus;
  if (!w.gpu_pairs.empty()) {
    nlohmann::json r = nlohmann::json::array();
    for (const auto& [a, b] : w.gpu_pairs) r.push_back({a, b});
    j["gpu_pairs"] = std::move(r);
  }
  if (!w.lines.empty()) j["lines"] = w.lines;
  if (w.period_iterations > 0) j["period_iterations"] = w.period_iterations;
  if (std::isfinite(w.period_s)) j["period_s"] = w.period_s;
  return j;
}

}  // namespace

nlohmann::json DiagnosisJson(const Diagnosis& d) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const InputFile& f : d.inputs) inputs.push_back({{"path", f.path}, {"kind", kInputKindNames.Name(f.kind)}});
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : d.findings) {
    nlohmann::json ev = nlohmann::json::array();
    for (const Evidence& e : f.evidence)
      ev.push_back({{"name", e.name}, {"value", Num(e.value)}, {"unit", e.unit}, {"source", e.source}});
    findings.push_back({{"rule", f.rule},
                        {"severity", kSeverityNames.Name(f.severity)},
                        {"title", f.title},
                        {"message", f.message},
                        {"loss_fraction", Num(f.loss_fraction)},
                        {"fix", f.fix},
                        {"evidence", std::move(ev)},
                        {"where", Where(f.where)}});
  }
  auto nums = [](const std::vector<double>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (double x : v) a.push_back(Num(x));
    return a;
  };
  nlohmann::json throughput = nlohmann::json::array(), telemetry = nlohmann::json::array();
  for (const auto& t : d.series.throughput)
    throughput.push_back({{"path", t.path},
                          {"quantity", t.quantity},
                          {"iterations", nums(t.iterations)},
                          {"values", nums(t.values)},
                          {"save_iterations", nums(t.save_iterations)}});
  for (const auto& t : d.series.telemetry)
    telemetry.push_back({{"path", t.path},
                         {"gpu", t.gpu},
                         {"time_s", nums(t.time_s)},
                         {"sm_clock_hz", nums(t.sm_clock_hz)},
                         {"temperature_c", nums(t.temperature_c)}});
  return {{"schema", "paratune.diagnose/1"},
          {"inputs", std::move(inputs)},
          {"rules", d.rules_run},
          {"findings", std::move(findings)},
          {"series", {{"throughput", std::move(throughput)}, {"telemetry", std::move(telemetry)}}}};
}

}  // namespace paratune
