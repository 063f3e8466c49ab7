// The generator's shared ground: the output buffer, the fixed facts of the modelled run (GPU,
// layers, streams, threads, time base) and the one error exit.
#pragma once

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace gen_trace {

using Buf = fmt::memory_buffer;

using Buf = fmt::memory_buffer;

constexpr int64_t kBaseTimeNs = 1700000000000000000;  // baseTimeNanoseconds
constexpr int64_t kTraceStartNs = 5000000000;         // profiler start, relative to the base
constexpr int kNumSms = 132;                          // H100 SXM
constexpr int kLayers = 16;
constexpr int kFirstStep = 10;  // ProfilerStep# of the first step
constexpr int kComputeStream = 7;
constexpr int kNcclStream = 20;
constexpr int kMain = 0;      // thread index: main thread (tid == pid)
constexpr int kAutograd = 1;  // thread index: autograd engine thread

[[noreturn]] inline void Fail(const std::string& msg) {
  std::fprintf(stderr, "paratune_gen_trace: %s\n", msg.c_str());
  std::exit(2);
}

}  // namespace gen_trace
