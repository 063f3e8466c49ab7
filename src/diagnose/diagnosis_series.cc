#include "diagnose/diagnosis_series.h"

#include <cmath>
#include <map>

namespace paratune {

namespace {

// Indices 0..n-1 thinned to at most kMaxSeriesPoints, evenly, first and last kept.
std::vector<size_t> Keep(size_t n) {
  std::vector<size_t> out;
  if (n <= kMaxSeriesPoints) {
    for (size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  for (size_t k = 0; k < kMaxSeriesPoints; ++k) out.push_back(k * (n - 1) / (kMaxSeriesPoints - 1));
  return out;
}

}  // namespace

DiagnosisSeries SeriesOf(const DiagnoseInputs& inputs) {
  DiagnosisSeries s;
  for (const TrainingLog& log : inputs.logs) {
    // The first quantity the log gives on most of its lines.
    const char* names[] = {"tokens_per_s_per_gpu", "tflops_per_gpu", "iterations_per_s"};
    auto value = [](const IterationRecord& r, int q) {
      if (q == 0) return r.tokens_per_s_per_gpu;
      if (q == 1) return r.tflops_per_gpu;
      return r.elapsed_per_iteration_s > 0 ? 1.0 / r.elapsed_per_iteration_s : kNotGiven;
    };
    int quantity = -1;
    for (int q = 0; q < 3 && quantity < 0; ++q) {
      size_t have = 0;
      for (const auto& r : log.iterations) have += std::isfinite(value(r, q)) ? 1 : 0;
      if (have * 2 > log.iterations.size() && have > 0) quantity = q;
    }
    if (quantity < 0) continue;
    ThroughputSeries t;
    t.path = log.path;
    t.quantity = names[quantity];
    std::vector<double> it, v;
    for (size_t i = 0; i < log.iterations.size(); ++i) {
      const double x = value(log.iterations[i], quantity);
      if (!std::isfinite(x)) continue;
      it.push_back(log.iterations[i].iteration >= 0 ? static_cast<double>(log.iterations[i].iteration)
                                                    : static_cast<double>(i));
      v.push_back(x);
    }
    for (size_t k : Keep(it.size())) {
      t.iterations.push_back(it[k]);
      t.values.push_back(v[k]);
    }
    for (const auto& c : log.checkpoints)
      if (c.iteration >= 0 && t.save_iterations.size() < kMaxSeriesPoints)
        t.save_iterations.push_back(static_cast<double>(c.iteration));
    s.throughput.push_back(std::move(t));
  }
  for (const GpuTelemetry& tel : inputs.telemetry) {
    std::map<int, std::vector<const TelemetrySample*>> by_gpu;
    for (const auto& smp : tel.samples)
      if (by_gpu.size() < kMaxTelemetrySeries || by_gpu.count(smp.gpu)) by_gpu[smp.gpu].push_back(&smp);
    for (const auto& [gpu, samples] : by_gpu) {
      TelemetrySeries t;
      t.path = tel.path;
      t.gpu = gpu;
      for (size_t k : Keep(samples.size())) {
        if (!std::isfinite(samples[k]->time_s)) continue;
        t.time_s.push_back(samples[k]->time_s);
        t.sm_clock_hz.push_back(samples[k]->sm_clock_hz);
        t.temperature_c.push_back(samples[k]->temperature_c);
      }
      if (!t.time_s.empty()) s.telemetry.push_back(std::move(t));
    }
  }
  return s;
}

}  // namespace paratune
