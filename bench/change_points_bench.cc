// Speed of change-point detection (analysis/change_points.h) on 1% AR(1) noise (rho 0.5) with
// and without steps: the optimal partition under MBIC with functional pruning, the noise
// estimate, and the steps-versus-trend choice of AnalyzeSeries (which segments twice).
// docs/diagnose-series.md records the figures.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "analysis/change_points.h"

namespace paratune {
namespace {

std::vector<double> Series(size_t n, int steps) {
  std::mt19937_64 g(42);
  auto normal = [&] {
    const double u1 = 1.0 - static_cast<double>(g() >> 11) * 0x1.0p-53, u2 = static_cast<double>(g() >> 11) * 0x1.0p-53;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  };
  std::vector<double> x(n);
  double e = 0;
  for (size_t i = 0; i < n; ++i) {
    e = 0.5 * e + 0.01 * std::sqrt(0.75) * normal();
    const double level = 400.0 * (1 - 0.05 * static_cast<double>((i * static_cast<size_t>(steps + 1)) / n % 2));
    x[i] = level * (1 + e);
  }
  return x;
}

void BM_DetectChangePoints(benchmark::State& state) {
  const auto x = Series(static_cast<size_t>(state.range(0)), static_cast<int>(state.range(1)));
  for (auto _ : state) benchmark::DoNotOptimize(DetectChangePoints(x));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_DetectChangePoints)->Args({10000, 0})->Args({10000, 10})->Args({100000, 0})->Unit(benchmark::kMillisecond);

void BM_AnalyzeSeries(benchmark::State& state) {
  const auto x = Series(static_cast<size_t>(state.range(0)), static_cast<int>(state.range(1)));
  for (auto _ : state) benchmark::DoNotOptimize(AnalyzeSeries(x));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_AnalyzeSeries)->Args({10000, 0})->Args({10000, 10})->Args({100000, 0})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace paratune
