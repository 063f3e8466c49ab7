// MemoryTimeline: one rank's GPU memory over time, from the profiler's memory events
// (torch.profiler(profile_memory=True), MemoryEvent): what PyTorch's caching allocator held
// allocated and reserved on the rank's GPU after each allocation and free, its peak over the
// trace and in each ProfilerStep, and the CPU operator running at each peak. The allocated series
// is what torch.cuda.memory_allocated() reads and its peak what max_memory_allocated() would over
// the profiled window (the totals are the allocator's own, torch/csrc/profiler/collection.cpp);
// traces of PyTorch before 1.10 carry no totals, only each event's bytes, and their series is
// the sum of those since the profile started (`absolute` false; reserved unknown).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/trace_event.h"

namespace paratune {

inline constexpr int kMemorySamples = 512;  // samples kept for the chart

struct MemoryPeak {
  int64_t step = -1;            // ProfilerStep#N; -1 for the whole trace
  int64_t allocated_bytes = 0;  // the peak of the allocated series
  int64_t reserved_bytes = -1;  // reserved at that moment; -1: unknown
  double at_s = 0;              // seconds from the first memory event of the device
  // The CPU operators and annotations running then, outermost first (by start, then the longer;
  // of any thread: the reader keeps no thread of Kineto events), ProfilerStep spans left out.
  std::vector<std::string> running;
};

struct MemorySample {
  double t_s = 0;  // seconds from the first memory event of the device
  int64_t allocated_bytes = 0;
  int64_t reserved_bytes = -1;
};

struct MemoryTimeline {
  int device_id = -1;                 // the CUDA device with the most memory events
  bool absolute = true;               // the allocator's totals (false: bytes since the profile started)
  int64_t events = 0;                 // memory events of that device
  MemoryPeak peak;                    // over the trace
  int64_t peak_reserved_bytes = -1;   // the largest reserved figure; -1: unknown
  std::vector<MemoryPeak> steps;      // per ProfilerStep with memory events, by step
  std::vector<MemorySample> samples;  // at most kMemorySamples: per equal time slice the highest
};

// None when the trace has no memory events of a CUDA device.
std::optional<MemoryTimeline> MemoryTimelineOf(const RankTrace& t);

}  // namespace paratune
