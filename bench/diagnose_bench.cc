// Speed of `paratune diagnose` (src/diagnose/): the sizing case, 100,000 Megatron-LM log
// lines (iteration lines at log interval 1 with a synchronous checkpoint save every 1,000
// iterations and its timer block) plus 8 GPUs x 1 hour of 1 s nvidia-smi telemetry, read from
// files, detected by content and diagnosed by every rule. Recorded in docs/performance.md.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "diagnose/diagnose.h"
#include "util/timestamp.h"

namespace paratune {
namespace {

namespace fs = std::filesystem;

struct Files {
  std::string log, telemetry;
  size_t log_lines = 0, telemetry_rows = 0;
};

const Files& Inputs() {
  static const Files f = [] {
    Files out;
    const fs::path dir = fs::temp_directory_path() / fmt::format("paratune_diagnose_bench_{}", ::getpid());
    fs::create_directories(dir);
    out.log = (dir / "train.log").string();
    out.telemetry = (dir / "smi.csv").string();
    const double t0 = *ParseTimestamp("2024-05-01 12:00:00");
    std::string log;
    double t = t0;
    int64_t it = 0;
    while (out.log_lines < 100000) {
      ++it;
      const double step_s = 1.2 + 0.01 * ((it * 7919) % 13) / 13.0;
      t += step_s;
      log += fmt::format(
          " [{}] iteration {:8d}/  500000 | consumed samples: {:12d} | elapsed time per iteration (ms): {:.1f} | "
          "throughput "
          "per GPU (TFLOP/s/GPU): {:.1f} | learning rate: 1.000000E-04 | global batch size:   512 | lm loss: "
          "2.345678E+00 | "
          "loss scale: 1.0 | grad norm: 0.321 | number of skipped iterations:   0 | number of nan iterations:   0 |\n",
          FormatTimestamp(t), it, it * 512, step_s * 1e3, 400.0 * 1.2 / step_s);
      ++out.log_lines;
      if (it % 1000 == 0) {
        log += fmt::format("saving checkpoint at iteration {:7d} to /ckpt in torch_dist format\n", it);
        t += 30;
        log += fmt::format("  successfully saved checkpoint from iteration {:7d} to /ckpt [ t 1/8, p 1/1 ]\n", it);
        log +=
            "(min, max) time across ranks (ms):\n    save-checkpoint ................................: (29950.12, "
            "30010.45)\n";
        out.log_lines += 4;
      }
    }
    std::ofstream(out.log) << log;
    std::string smi =
        "timestamp, index, utilization.gpu [%], clocks.current.sm [MHz], clocks.max.sm [MHz], power.draw [W], "
        "power.limit [W], "
        "temperature.gpu, clocks_throttle_reasons.active\n";
    for (int s = 0; s < 3600; ++s)
      for (int g = 0; g < 8; ++g) {
        smi += fmt::format("{}.{:03d}, {}, {} %, 1980 MHz, 1980 MHz, {:.2f} W, 700.00 W, {}, 0x0000000000000000\n",
                           FormatTimestamp(t0 + s), g * 3, g, 95 + (s + g) % 5, 640.0 + (s * 13 + g) % 40,
                           60 + (s + g) % 7);
        ++out.telemetry_rows;
      }
    std::ofstream(out.telemetry) << smi;
    return out;
  }();
  return f;
}

void BM_DiagnoseLogAndTelemetry(benchmark::State& state) {
  const Files& f = Inputs();
  size_t findings = 0;
  for (auto _ : state) {
    const DiagnoseInputs in = LoadDiagnoseInputs({f.log, f.telemetry});
    const Diagnosis d = Diagnose(in);
    findings = d.findings.size();
    benchmark::DoNotOptimize(d);
  }
  state.counters["log_lines"] = static_cast<double>(f.log_lines);
  state.counters["telemetry_rows"] = static_cast<double>(f.telemetry_rows);
  state.counters["findings"] = static_cast<double>(findings);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(fs::file_size(f.log) + fs::file_size(f.telemetry)));
}
BENCHMARK(BM_DiagnoseLogAndTelemetry)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace paratune
