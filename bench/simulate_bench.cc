// Speed of the pipeline simulator (src/pipeline/simulator.h): building the schedule and
// simulating one step, with and without recording the Timeline.
#include <benchmark/benchmark.h>

#include "step/estimate.h"
#include "hardware/hardware_catalog.h"
#include "model/catalog.h"
#include "pipeline/simulator.h"

namespace paratune {
namespace {

void RunSimulation(benchmark::State& state, ScheduleKind kind, int pp, int vp, int64_t m) {
  PipelineInput in = BalancedInput(pp, vp, 1e-3 / vp, 2e-3 / vp, 1e-3 / vp);
  in.p2p_s = 50e-6;
  in.record_timeline = state.range(0) != 0;
  for (auto _ : state) benchmark::DoNotOptimize(SimulatePipeline(BuildSchedule(kind, pp, vp, m), in));
  state.counters["ops"] = static_cast<double>(2 * pp * vp * m);
}

// The size target: pp 64, vp 4, 1024 micro-batches interleaved (524,288 F/B ops).
void BM_SimulateInterleavedPp64Vp4M1024(benchmark::State& state) {
  RunSimulation(state, ScheduleKind::kInterleaved, 64, 4, 1024);
}
BENCHMARK(BM_SimulateInterleavedPp64Vp4M1024)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_Simulate1F1BPp8M64(benchmark::State& state) { RunSimulation(state, ScheduleKind::k1F1B, 8, 1, 64); }
BENCHMARK(BM_Simulate1F1BPp8M64)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_SimulateZbH1Pp8M64(benchmark::State& state) { RunSimulation(state, ScheduleKind::kZbH1, 8, 1, 64); }
BENCHMARK(BM_SimulateZbH1Pp8M64)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// EstimateStep with a pipeline, so the estimate path runs the simulation: Llama 3.1 70B on
// 128 H100, tp 8, pp 8 (x vp 1 or 2), 32 micro-batches.
void BM_EstimateWithPipeline(benchmark::State& state) {
  const ModelSpec m = LoadModel("llama-3.1-70b");
  const ClusterSpec c = HardwareCatalog::BuiltIn().Cluster("H100", 128);
  Layout l;
  l.tp = 8;
  l.pp = 8;
  l.vp = static_cast<int>(state.range(0));
  const Training t{4096, 64, Precision::kBf16};
  for (auto _ : state) benchmark::DoNotOptimize(EstimateStep(m, c, t, l));
}
BENCHMARK(BM_EstimateWithPipeline)->Arg(1)->Arg(2);

}  // namespace
}  // namespace paratune
