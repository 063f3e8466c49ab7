// Speed of the run registry (issue 14: `runs list` and `runs compare` under 100 ms with 100,000
// recorded runs): a SQLite store under the temp directory filled once with 100,000 runs through
// RecordRuns (one transaction), each with the figures of an estimate (12 metrics), a model out
// of 8, a cluster out of 16 and a team tag out of 10; then List with the default limit, List with
// a model and a tag filter, and Compare of two runs. Recorded in docs/performance.md.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "runs/registry.h"

namespace paratune {
namespace {

constexpr int kRuns = 100'000;

Database& Store() {
  static std::unique_ptr<Database> db = [] {
    const std::string path = (std::filesystem::temp_directory_path() / "paratune_runs_bench.db").string();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
    auto d = OpenRegistry(path);
    std::vector<RunRecord> runs(kRuns);
    for (int i = 0; i < kRuns; ++i) {
      RunRecord& r = runs[i];
      r.name = fmt::format("run-{:06}", i);
      r.model = fmt::format("model-{}", i % 8);
      r.cluster = fmt::format("cluster-{}", i % 16);
      r.gpu = "H100", r.gpus = 64;
      SetTag(r, "team", fmt::format("t{}", i % 10));
      const double step = 30.0 + (i % 100) * 0.1;
      r[Metric::kStepTime] = {step * 1.05, step};
      r[Metric::kMfu] = {0.38, 0.40};
      r[Metric::kTokensPerSPerGpu] = {880.0, 900.0};
      r[Metric::kComputeTime].predicted = step * 0.8;
      r[Metric::kExposedTpComm].predicted = step * 0.1;
      r[Metric::kBubbleTime].predicted = step * 0.05;
      r[Metric::kOptimizerTime].predicted = step * 0.05;
      r[Metric::kPeakMemory].predicted = 6e10;
      r[Metric::kTokensPerHour].predicted = 900.0 * 64 * 3600;
      r[Metric::kCommShare].predicted = 0.1;
      r[Metric::kBubbleShare].predicted = 0.05;
      r[Metric::kHfu].predicted = 0.40;
    }
    const auto t0 = std::chrono::steady_clock::now();
    RecordRuns(*d, runs);
    std::fprintf(stderr, "runs_bench: recorded %d runs in %.1f s (%s)\n", kRuns,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), path.c_str());
    return d;
  }();
  return *db;
}

void BM_RunsListDefault(benchmark::State& state) {
  Database& db = Store();
  for (auto _ : state) {
    auto runs = List(db, ListFilter{});
    benchmark::DoNotOptimize(runs.data());
  }
}
BENCHMARK(BM_RunsListDefault)->Unit(benchmark::kMillisecond);

void BM_RunsListFiltered(benchmark::State& state) {
  Database& db = Store();
  ListFilter f;
  f.model = "model-3";
  f.tags = {{"team", "t3"}};
  for (auto _ : state) {
    auto runs = List(db, f);
    if (runs.size() != static_cast<size_t>(kDefaultListLimit)) state.SkipWithError("filter returned too few runs");
    benchmark::DoNotOptimize(runs.data());
  }
}
BENCHMARK(BM_RunsListFiltered)->Unit(benchmark::kMillisecond);

void BM_RunsCompare(benchmark::State& state) {
  Database& db = Store();
  for (auto _ : state) {
    Comparison c = Compare(db, "run-012345", "run-098765");
    benchmark::DoNotOptimize(c.terms.data());
  }
}
BENCHMARK(BM_RunsCompare)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace paratune
