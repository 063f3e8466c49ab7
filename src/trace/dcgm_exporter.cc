#include "trace/dcgm_exporter.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "util/error.h"
#include "util/prometheus_text.h"
#include "util/text.h"

namespace paratune {
namespace {

// A DCGM field the reader uses: the exporter's metric name (dcgm-exporter's counters files,
// etc/default-counters.csv and etc/dcp-metrics-included.csv; DCGM's dcgm_fields.h), the factor
// to SI, the range of the exporter's value and the sample member it sets.
struct ExporterField {
  const char* name;
  double to_si;
  double min, max;
  double TelemetrySample::*member;  // nullptr: the clock-event reasons bitmask
};

constexpr double kAny = 1e18;
constexpr ExporterField kFields[] = {
    {"DCGM_FI_DEV_SM_CLOCK", 1e6, 0, 1e5, &TelemetrySample::sm_clock_hz},
    {"DCGM_FI_DEV_MAX_SM_CLOCK", 1e6, 0, 1e5, &TelemetrySample::max_sm_clock_hz},
    {"DCGM_FI_DEV_POWER_USAGE", 1, 0, 1e5, &TelemetrySample::power_w},
    {"DCGM_FI_DEV_POWER_MGMT_LIMIT", 1, 0, 1e5, &TelemetrySample::power_limit_w},
    {"DCGM_FI_DEV_GPU_TEMP", 1, -100, 300, &TelemetrySample::temperature_c},
    {"DCGM_FI_DEV_GPU_UTIL", 0.01, 0, 100, &TelemetrySample::util_fraction},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", 1, 0, 1, &TelemetrySample::gr_active},
    {"DCGM_FI_PROF_SM_ACTIVE", 1, 0, 1, &TelemetrySample::sm_active},
    {"DCGM_FI_PROF_SM_OCCUPANCY", 1, 0, 1, &TelemetrySample::sm_occupancy},
    {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", 1, 0, 1, &TelemetrySample::tensor_active},
    {"DCGM_FI_PROF_DRAM_ACTIVE", 1, 0, 1, &TelemetrySample::dram_active},
    // DCGM 3.3 renamed the throttle reasons to clock events (same bits, nvml.h).
    {"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", 1, 0, kAny, nullptr},
    {"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", 1, 0, kAny, nullptr},
};

const ExporterField* FindField(const std::string& name) {
  for (const ExporterField& f : kFields)
    if (name == f.name) return &f;
  return nullptr;
}

[[noreturn]] void Fail(const std::string& where, int line, const std::string& what) {
  throw InputError(fmt::format("{}:{}: {}", where, line, what));
}

// The sample's GPU index from its `gpu` label.
int GpuOf(const ParsedSample& p, const std::string& where) {
  for (const auto& [k, v] : p.labels)
    if (k == "gpu") {
      if (v.empty() || v.size() > 4 || v.find_first_not_of("0123456789") != std::string::npos || std::stoi(v) > 1023)
        Fail(where, p.line, fmt::format("{}: gpu label {} is not a GPU index (0-1023)", p.name, Quote(v)));
      return std::stoi(v);
    }
  Fail(where, p.line, p.name + " without a gpu label (dcgm-exporter labels each GPU's samples gpu=\"N\")");
}

void SetField(const ExporterField& f, const ParsedSample& p, const std::string& where, TelemetrySample& s) {
  if (!(p.value >= f.min && p.value <= f.max))
    Fail(where, p.line, fmt::format("{} {} is outside [{}, {}]", p.name, p.value, f.min, f.max));
  if (f.member) {
    s.*f.member = p.value * f.to_si;
    return;
  }
  if (p.value != std::floor(p.value) || p.value >= 9007199254740992.0)
    Fail(where, p.line, fmt::format("{} {} is not a bitmask", p.name, p.value));
  s.reasons = static_cast<uint64_t>(p.value);
  s.reasons_known = true;
}

}  // namespace

bool LooksLikeDcgmExporter(std::string_view head) {
  size_t pos = 0;
  while (pos < head.size()) {
    const size_t end = std::min(head.find('\n', pos), head.size());
    std::string_view line = head.substr(pos, end - pos);
    pos = end + 1;
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) continue;
    line.remove_prefix(first);
    return line.rfind("DCGM_FI_", 0) == 0 || line.rfind("# HELP DCGM_FI_", 0) == 0 ||
           line.rfind("# TYPE DCGM_FI_", 0) == 0;
  }
  return false;
}

GpuTelemetry ParseDcgmExporter(std::string_view text, const std::string& where) {
  GpuTelemetry t;
  t.path = where;
  t.source = TelemetrySource::kDcgmExporter;
  std::map<std::pair<int64_t, int>, TelemetrySample> by_time_gpu;
  for (const ParsedSample& p : ParsePrometheusText(text, where)) {
    const ExporterField* f = FindField(p.name);
    if (!f) continue;  // another field or another exporter's metric
    if (!p.timestamp_ms)
      Fail(where, p.line,
           p.name +
               " without a timestamp: capture through Prometheus's /federate endpoint, or stamp each scrape "
               "(docs/diagnose-telemetry.md, \"DCGM exporter\")");
    const int gpu = GpuOf(p, where);
    auto [it, added] = by_time_gpu.try_emplace({*p.timestamp_ms, gpu});
    if (added) {
      it->second.gpu = gpu;
      it->second.line = p.line;
      it->second.time_s = static_cast<double>(*p.timestamp_ms) / 1000;
    }
    SetField(*f, p, where, it->second);
  }
  if (by_time_gpu.empty())
    throw InputError(where +
                     ": no DCGM_FI_ sample the reader uses (SM clock, power, temperature, utilisation, "
                     "clock-event reasons, profiling ratios)");
  std::set<int> gpus;
  int sample = -1;
  int64_t last_ms = 0;
  for (auto& [key, s] : by_time_gpu) {
    if (sample < 0 || key.first != last_ms) ++sample, last_ms = key.first;
    s.sample = sample;
    gpus.insert(key.second);
    t.samples.push_back(s);
  }
  SetTelemetrySampling(&t, static_cast<int>(gpus.size()), sample + 1);
  return t;
}

}  // namespace paratune
