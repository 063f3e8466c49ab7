// Speed of `paratune plan`'s search: layouts evaluated per second on the default scenario, and
// the two full searches of issue 3 (Llama-3.1-405B on 2,048 nodes of 8 B300; DeepSeek-V3 on 256
// nodes of 8 B300), each required under 1 s on one core. Figures: docs/performance.md.
#include <benchmark/benchmark.h>

#include "hardware/hardware_catalog.h"
#include "model/catalog.h"
#include "plan/planner.h"
#include "scenario/default_scenario.h"

namespace paratune {
namespace {

PlanRequest Request(const std::string& model, int nodes, Training t, const std::string& gpu = "B300") {
  PlanRequest r;
  r.model = LoadModel(model);
  r.cluster = HardwareCatalog::BuiltIn().Cluster(gpu, nodes * 8);
  r.training = t;
  r.switches = DefaultLayout();
  return r;
}

void RunSearch(benchmark::State& state, const PlanRequest& r) {
  int64_t evaluated = 0;
  for (auto _ : state) {
    const PlanResult res = Plan(r);
    evaluated += res.estimated;
    benchmark::DoNotOptimize(res.ranked.data());
  }
  state.counters["layouts_evaluated_per_s"] =
      benchmark::Counter(static_cast<double>(evaluated), benchmark::Counter::kIsRate);
  state.counters["layouts_per_search"] = static_cast<double>(evaluated) / static_cast<double>(state.iterations());
  const PlanResult once = Plan(r);
  state.counters["layouts_considered"] = static_cast<double>(once.candidates);
}

void BM_PlanDefaultScenario(benchmark::State& state) {
  RunSearch(state, Request(kDefaultModel, kDefaultNodes, DefaultTraining()));
}
BENCHMARK(BM_PlanDefaultScenario)->Unit(benchmark::kMillisecond);

void BM_PlanLlama405BOn2048Nodes(benchmark::State& state) {
  RunSearch(state, Request("llama-3.1-405b", 2048, Training{8192, 2048, Precision::kBf16}));
}
BENCHMARK(BM_PlanLlama405BOn2048Nodes)->Unit(benchmark::kMillisecond);

void BM_PlanDeepSeekV3On256Nodes(benchmark::State& state) {
  RunSearch(state, Request("deepseek-v3", 256, Training{4096, 2048, Precision::kBf16}));
}
BENCHMARK(BM_PlanDeepSeekV3On256Nodes)->Unit(benchmark::kMillisecond);

// Issue 10's big runs, with the pipeline splits and schedules searched: GPT-3 175B on 4,096
// A100-80GB (512 nodes; seq 2048, global batch 1536, as in Narayanan et al. 2021 Table 1) and
// Llama-3.1-405B on 16,384 H100 (2,048 nodes; seq 8192, global batch 2048), each under 1 s.
void BM_PlanGpt3On4096A100(benchmark::State& state) {
  RunSearch(state, Request("gpt3-175b", 512, Training{2048, 1536, Precision::kBf16}, "A100-80GB"));
}
BENCHMARK(BM_PlanGpt3On4096A100)->Unit(benchmark::kMillisecond);

void BM_PlanLlama405BOn16384H100(benchmark::State& state) {
  RunSearch(state, Request("llama-3.1-405b", 2048, Training{8192, 2048, Precision::kBf16}, "H100"));
}
BENCHMARK(BM_PlanLlama405BOn16384H100)->Unit(benchmark::kMillisecond);

// The same two searches over every precision the B300 supports (BF16, FP8, FP4).
void BM_PlanLlama405BOn2048NodesAnyPrecision(benchmark::State& state) {
  PlanRequest r = Request("llama-3.1-405b", 2048, Training{8192, 2048, Precision::kBf16});
  r.any_precision = true;
  RunSearch(state, r);
}
BENCHMARK(BM_PlanLlama405BOn2048NodesAnyPrecision)->Unit(benchmark::kMillisecond);

void BM_PlanDeepSeekV3On256NodesAnyPrecision(benchmark::State& state) {
  PlanRequest r = Request("deepseek-v3", 256, Training{4096, 2048, Precision::kBf16});
  r.any_precision = true;
  RunSearch(state, r);
}
BENCHMARK(BM_PlanDeepSeekV3On256NodesAnyPrecision)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace paratune
