// paratune_gen_trace: writes large, realistic PyTorch-profiler (Kineto) Chrome-trace JSON files
// for the speed and memory benchmarks of the trace analyzer.
//
//   paratune_gen_trace --out FILE [--bytes N] [--rank R] [--world W] [--steps S] [--seed X] [--gzip]
//
// The trace is one rank of an FSDP-style training run of a 16-layer Llama-like transformer
// (hidden 4096, sequence 4096, bf16) on an H100: every step has a data-loader op, a forward on
// the main thread, a backward on the autograd thread, gradient-norm clipping with a small
// all-reduce, a fused AdamW step and a `loss.item()` sync. Parameters are all-gathered before
// each layer (prefetched one layer ahead) and gradients reduce-scattered after each layer's
// backward on NCCL stream 20, so communication overlaps compute on stream 7 only partially
// (the first all-gather of a step and the last reduce-scatter are exposed at 8 ranks; beyond 8
// ranks collectives run at network speed and most of them are exposed). Kernels run back to
// back with gaps of a few µs, one in ~300 runs slow, and in one step in ten one rank's data
// loader stalls for 3-25 ms while the other ranks wait in the step's first all-gather.
//
// Layout, after Kineto's libkineto/src/output_json.cpp and real traces (HTA test data):
//   {"schemaVersion", "deviceProperties" (one H100), "distributedInfo", "traceEvents": [
//     CPU events of the main thread for all steps (ProfilerStep#N, cpu_op, user_annotation,
//       python_function, [memory] instants, fwdbwd flow starts), in time order,
//     the same for the autograd thread (backward),
//     GPU activities in launch order, each followed by its ac2g flow end, its cuda_runtime
//       call and the ac2g flow start (kernel, gpu_memcpy, gpu_memset; runtime-only calls such
//       as cudaEventRecord or cudaStreamSynchronize stand alone),
//     gpu_user_annotation ranges, process/thread metadata ("M"), the "PyTorch Profiler (0)"
//       Trace span, its process_sort_index and the "Iteration Start" / "Record Window End"
//       instants, as Kineto ends the array
//   ], "traceName", "displayTimeUnit": "ms", "baseTimeNanoseconds"}
// Times are µs with 3 decimals relative to baseTimeNanoseconds, which comes last, as recent
// Kineto writes it. Unlike Kineto, which spreads an event over several lines, every event is
// on one line. The output depends only on the flags. Files of the ranks of one job (same seed
// and --world) line up: same steps, kernels and collectives, collectives ending together;
// ranks differ in pids, straggler roles and a little noise on the GPU and runtime durations.
//
// Memory stays constant: only one step's events are held at a time. The file is written in
// four passes over the steps (main thread, autograd thread, GPU, GPU annotations); each pass
// regenerates the steps from the seed. Output goes through an 8 MB buffer (zlib level 1 with
// --gzip). --bytes sets the target uncompressed size: the step count is chosen so the file
// stays just under it (--steps overrides it).
//
// Files by concern (tools/gen_kineto_trace/): common.h, rng.h, op_catalogue.h (the op and
// kernel tables), step_model.h (one step's events), kineto_writer.h (the JSON), main.cc (flags,
// the step count for a target size, the four passes).
#include <cerrno>
#include <chrono>
#include <cstring>

#include "common.h"
#include "kineto_writer.h"
#include "op_catalogue.h"
#include "step_model.h"

namespace {

using namespace gen_trace;

// ---------------------------------------------------------------------------------------------
// Flags.

int64_t ParseInt(const std::string& flag, const std::string& v, int64_t lo, int64_t hi) {
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0 || x < lo || x > hi)
    Fail(fmt::format("bad value for {}: '{}' (an integer in [{}, {}])", flag, v, lo, hi));
  return x;
}

int64_t ParseBytes(const std::string& v) {
  char* end = nullptr;
  errno = 0;
  double x = std::strtod(v.c_str(), &end);
  const std::string_view suffix(end);
  double mult = 1;
  if (suffix == "k" || suffix == "K")
    mult = 1e3;
  else if (suffix == "M" || suffix == "m")
    mult = 1e6;
  else if (suffix == "G" || suffix == "g")
    mult = 1e9;
  else if (!suffix.empty())
    x = -1;
  x *= mult;
  if (v.empty() || end == v.c_str() || errno != 0 || !(x >= 1) || x > 1e15)
    Fail(fmt::format("bad value for --bytes: '{}' (a size such as 1e9, 500M, 2G)", v));
  return static_cast<int64_t>(x);
}

Config ParseArgs(int argc, char** argv) {
  Config c;
  bool have_out = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string v;
    bool have_v = false;
    if (const size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      v = a.substr(eq + 1);
      a = a.substr(0, eq);
      have_v = true;
    }
    auto value = [&]() -> std::string {
      if (have_v) return v;
      if (i + 1 >= argc) Fail(fmt::format("{} needs a value", a));
      return argv[++i];
    };
    if (a == "--out") {
      c.out = value();
      have_out = !c.out.empty();
    } else if (a == "--bytes") {
      c.bytes = ParseBytes(value());
    } else if (a == "--rank") {
      c.rank = static_cast<int>(ParseInt(a, value(), 0, 1 << 20));
    } else if (a == "--world") {
      c.world = static_cast<int>(ParseInt(a, value(), 1, 1 << 20));
    } else if (a == "--steps") {
      c.steps = ParseInt(a, value(), 1, 100000000);
    } else if (a == "--seed") {
      c.seed = static_cast<uint64_t>(ParseInt(a, value(), 0, INT64_MAX));
    } else if (a == "--gzip" && !have_v) {
      c.gzip = true;
    } else if (a == "-h" || a == "--help") {
      std::printf(
          "usage: paratune_gen_trace --out FILE [--bytes N] [--rank R] [--world W] [--steps S] [--seed X] [--gzip]\n"
          "Writes a synthetic PyTorch-profiler (Kineto) trace of one rank of an FSDP training run.\n"
          "  --bytes N   target uncompressed size (default 1e9; suffixes k, M, G)\n"
          "  --rank R    rank (default 0)      --world W  ranks in the job (default 8)\n"
          "  --steps S   profiler steps (default: as many as fit in --bytes)\n"
          "  --seed X    random seed (default 1)  --gzip   write gzip (zlib level 1)\n");
      std::exit(0);
    } else {
      Fail(fmt::format("unknown flag '{}' (see --help)", argv[i]));
    }
  }
  if (!have_out) Fail("--out FILE is required");
  if (c.rank >= c.world) Fail(fmt::format("--rank {} is not below --world {}", c.rank, c.world));
  return c;
}

int PidOf(int rank) { return 2100000 + (rank % 100000) * 17; }

// Steps whose total size stays within the target: step sizes are measured (formatted and
// dropped) on a sample of steps of rank 0, the model itself run for all of them.
int64_t FitSteps(const Config& c) {
  Config c0 = c;
  c0.rank = 0;
  Tables t;
  t.Build(PidOf(0), c.world);
  Writer w{t, c0, PidOf(0), {PidOf(0), PidOf(0) + 73}};
  Buf b;
  w.Header(b);
  w.Footer(b, kTraceStartNs + 100000000000000LL);
  int64_t total = static_cast<int64_t>(b.size());
  Model m(t, c0);
  int64_t step_bytes = 0;
  for (int64_t s = 0;; ++s) {
    m.Step(s);
    if (s % 16 == 0) {
      b.clear();
      for (int p = 0; p < 4; ++p) w.Pass(b, p, m);
      step_bytes = static_cast<int64_t>(b.size());
    }
    if (total + step_bytes > c.bytes) return std::max<int64_t>(1, s);
    total += step_bytes;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Config c = ParseArgs(argc, argv);
  const auto t0 = std::chrono::steady_clock::now();
  const int64_t steps = c.steps > 0 ? c.steps : FitSteps(c);

  const int pid = PidOf(c.rank);
  Tables t;
  t.Build(pid, c.world);
  Writer w{t, c, pid, {pid, pid + 73}};
  Sink sink;
  sink.Open(c.out, c.gzip);
  w.Header(sink.buf);
  int64_t end_ns = 0;
  for (int pass = 0; pass < 4; ++pass) {
    Model m(t, c);
    for (int64_t s = 0; s < steps; ++s) {
      m.Step(s);
      w.Pass(sink.buf, pass, m);
      sink.MaybeFlush();
    }
    end_ns = m.EndTime();
  }
  w.Footer(sink.buf, end_ns);
  sink.Flush();
  sink.Close();

  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("wrote %s: %lld bytes uncompressed, %lld steps, %lld events, %.2f s (%.0f MB/s)\n", c.out.c_str(),
              static_cast<long long>(sink.written), static_cast<long long>(steps), static_cast<long long>(w.events),
              secs, static_cast<double>(sink.written) / 1e6 / secs);
  return 0;
}
