// Speed of `paratune estimate`'s library path: loading a catalog model and the hardware catalog,
// and one EstimateStep, for every catalog model. Figures: docs/performance.md.
#include <benchmark/benchmark.h>

#include "step/estimate.h"
#include "hardware/hardware_catalog.h"
#include "model/catalog.h"
#include "scenario/default_scenario.h"

namespace paratune {
namespace {

// A layout valid for most catalog models on 64 B300: tp 8 if heads allow, pp to fit layers.
Layout LayoutFor(const ModelSpec& m) {
  Layout l = DefaultLayout();
  l.tp = (m.heads % 8 == 0 && (m.attention == AttentionKind::kMla || m.kv_heads % 8 == 0)) ? 8 : 1;
  l.pp = m.layers % 4 == 0 ? 4 : 1;
  if (m.is_moe()) l.ep = m.experts % 8 == 0 ? 8 : 1;
  if (l.ep > 1) l.etp = 1;
  return l;
}

void BM_EstimateDefault(benchmark::State& state) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const ModelSpec m = LoadModel(kDefaultModel);
  const ClusterSpec c = hw.Cluster(kDefaultGpu, kDefaultNodes * 8);
  for (auto _ : state) benchmark::DoNotOptimize(EstimateStep(m, c, DefaultTraining(), DefaultLayout()));
}
BENCHMARK(BM_EstimateDefault);

// The whole command path except printing: parse the model's config.json and the hardware
// catalog, then estimate. Runs every catalog model in turn.
void BM_EstimateEveryCatalogModelFromScratch(benchmark::State& state) {
  const std::vector<std::string> ids = CatalogModelIds();
  size_t i = 0;
  for (auto _ : state) {
    const HardwareCatalog hw = HardwareCatalog::BuiltIn();
    const ModelSpec m = LoadModel(ids[i++ % ids.size()]);
    const ClusterSpec c = hw.Cluster("B300", 64);
    Training t = DefaultTraining();
    t.global_batch = 512;
    benchmark::DoNotOptimize(EstimateStep(m, c, t, LayoutFor(m)));
  }
  state.counters["models"] = static_cast<double>(ids.size());
}
BENCHMARK(BM_EstimateEveryCatalogModelFromScratch);

}  // namespace
}  // namespace paratune
