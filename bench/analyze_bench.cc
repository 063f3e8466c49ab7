// Speed of trace analysis (src/trace/, src/analysis/): parsing Kineto JSON from memory, from a .gz file, and
// the analysis itself, on the largest shared trace (HTA's df_index_resolver fixture: 216,092
// events, 53.7 MB of JSON; see ../shared/traces/SOURCES.md). Throughput is reported as bytes of
// uncompressed JSON per second. The 1 GB measurement uses the generator (tools/) and the CLI;
// see docs/performance.md.
#include <benchmark/benchmark.h>
#include <zlib.h>

#include <filesystem>
#include <string>

#include "trace/kineto_reader.h"
#include "analysis/trace_analysis.h"

namespace paratune {
namespace {

const std::string kTrace = PARATUNE_SOURCE_DIR "/../shared/traces/hta/df_index_resolver/df_index_resolver.json.gz";

// Without ../shared the benchmarks are skipped with this message.
const std::string& Missing() {
  static const std::string m = "needs " + kTrace + ", which is absent (../shared is not beside this checkout)";
  return m;
}

const std::string& Decompressed() {
  static const std::string json = [] {
    std::string s;
    gzFile f = gzopen(kTrace.c_str(), "rb");
    if (!f) return s;
    char buf[1 << 16];
    for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) s.append(buf, static_cast<size_t>(n));
    gzclose(f);
    return s;
  }();
  return json;
}

void BM_ParseKinetoFromMemory(benchmark::State& state) {
  const std::string& json = Decompressed();
  if (json.empty()) return state.SkipWithError(Missing().c_str());
  for (auto _ : state) benchmark::DoNotOptimize(ParseKinetoTrace(json, "df_index_resolver"));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(json.size()));
}
BENCHMARK(BM_ParseKinetoFromMemory)->Unit(benchmark::kMillisecond);

// Includes zlib inflate of 3.0 MB into 53.7 MB.
void BM_ReadKinetoGzFile(benchmark::State& state) {
  std::error_code ec;
  if (!std::filesystem::exists(kTrace, ec)) return state.SkipWithError(Missing().c_str());
  int64_t bytes = 0;
  for (auto _ : state) {
    RankTrace t = ReadKinetoTrace(kTrace);
    bytes += t.bytes_read;
    benchmark::DoNotOptimize(t);
  }
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_ReadKinetoGzFile)->Unit(benchmark::kMillisecond);

// HTA's full set of breakdowns plus paratune's (iterations, collectives) on the parsed rank.
void BM_AnalyzeParsedTrace(benchmark::State& state) {
  const std::string& json = Decompressed();
  if (json.empty()) return state.SkipWithError(Missing().c_str());
  std::vector<RankTrace> ranks;
  ranks.push_back(ParseKinetoTrace(json, "df_index_resolver"));
  for (auto _ : state) benchmark::DoNotOptimize(AnalyzeTraces(ranks));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(json.size()));
  state.counters["events"] = static_cast<double>(ranks[0].events.size());
}
BENCHMARK(BM_AnalyzeParsedTrace)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace paratune
