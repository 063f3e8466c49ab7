// Speed of `paratune cluster` (src/scheduling/): the sizing case, the whole Philly-derived
// trace (82,247 jobs, ../shared/cluster-traces/philly-pollux/philly.csv) replayed on 256 nodes of
// 8 GPUs under each policy, one core, placements recorded as for --trace-out; and the reading of
// the trace. Skips when ../shared is absent. And the acceptance case of the `slurm` policy: the
// generated Slurm history of 50,000 jobs on 128 nodes (testdata/cluster/slurm-gen/, written by
// tools/gen_slurm_history.py) under its slurm.conf and the topology/block what-if. Recorded in
// docs/performance.md.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "scheduling/policy.h"
#include "scheduling/slurm_conf.h"
#include "scheduling/speed_model.h"
#include "scheduling/job_history_reader.h"
#include "hardware/hardware_catalog.h"
#include "util/file.h"

namespace paratune {
namespace {

const std::string kPhilly = std::string(PARATUNE_SOURCE_DIR) + "/../shared/cluster-traces/philly-pollux/philly.csv";

const std::string* PhillyText() {
  static const std::string* text = [] {
    return std::filesystem::exists(kPhilly) ? new std::string(ReadFile(kPhilly)) : nullptr;
  }();
  return text;
}

void BM_ReadPhillyTrace(benchmark::State& state) {
  if (!PhillyText()) {
    state.SkipWithError(("absent: " + kPhilly).c_str());
    return;
  }
  for (auto _ : state) {
    JobTrace t = ReadJobTrace(*PhillyText(), kPhilly, std::nullopt, JobTraceDefaults{});
    benchmark::DoNotOptimize(t.jobs.data());
  }
}
BENCHMARK(BM_ReadPhillyTrace)->Unit(benchmark::kMillisecond);

void BM_ReplayPhilly256Nodes(benchmark::State& state, const char* policy_name) {
  if (!PhillyText()) {
    state.SkipWithError(("absent: " + kPhilly).c_str());
    return;
  }
  const HardwareCatalog catalog = HardwareCatalog::BuiltIn();
  const ClusterTopology topo = TopologyFromFlags(catalog, "H100", 256);
  JobTraceDefaults d;
  d.max_gpus = topo.total_gpus;
  const JobTrace trace = FilterPlaceable(topo, ReadJobTrace(*PhillyText(), kPhilly, std::nullopt, d), {});
  ReplayOptions o;
  o.series_interval_s = 3600;
  int64_t finished = 0;
  for (auto _ : state) {
    SpeedModel speed(topo);
    auto policy = FindPolicy(policy_name).make();
    ReplayResult r = Replay(topo, trace, *policy, &speed, o);
    finished = r.metrics.jobs_finished;
    benchmark::DoNotOptimize(r.placements.data());
  }
  state.counters["jobs"] = static_cast<double>(finished);
}
BENCHMARK_CAPTURE(BM_ReplayPhilly256Nodes, fifo, "fifo")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReplayPhilly256Nodes, topo, "topo")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReplayPhilly256Nodes, topo_preempt, "topo-preempt")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReplayPhilly256Nodes, topo_defrag, "topo-defrag")->Unit(benchmark::kMillisecond);

void BM_ReplaySlurmGenerated(benchmark::State& state, const char* what_if) {
  const std::string dir = std::string(PARATUNE_SOURCE_DIR) + "/testdata/cluster/slurm-gen/";
  const HardwareCatalog catalog = HardwareCatalog::BuiltIn();
  const ClusterTopology topo = ReadClusterFile(catalog, ReadFile(dir + "topology.conf"), "topology.conf", "B300");
  const std::string conf_text = ReadFile(dir + "slurm.conf");
  const SlurmConfig conf = ParseSlurmConf(conf_text + "\n" + what_if, "slurm.conf");
  JobTraceDefaults d;
  d.max_gpus = topo.total_gpus;
  JobTrace trace = ReadJobTrace(ReadMaybeGzipFile(dir + "history.txt.gz"), "history.txt.gz", std::nullopt, d);
  ApplySlurmConfig(conf, topo.total_gpus, &trace);
  trace = FilterPlaceable(topo, std::move(trace), {});
  ReplayOptions o;
  o.slurm = &conf;
  o.min_run_s = conf.preempt_exempt_time_s;
  int64_t finished = 0;
  for (auto _ : state) {
    auto policy = FindPolicy("slurm").make();
    ReplayResult r = Replay(topo, trace, *policy, nullptr, o);
    finished = r.metrics.jobs_finished;
    benchmark::DoNotOptimize(r.placements.data());
  }
  state.counters["jobs"] = static_cast<double>(finished);
}
BENCHMARK_CAPTURE(BM_ReplaySlurmGenerated, configured, "")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReplaySlurmGenerated, block, "TopologyPlugin=topology/block")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace paratune
