// KernelSequences: HTA's frequent CUDA kernel sequences (TraceAnalysis.
// get_frequent_cuda_kernel_sequences; hta/analyzers/cuda_kernel_analysis.py, its call graph
// hta/common/trace_call_graph.py and trace_call_stack.py): which sequences of GPU work the
// operators named like `op` launch, and how often.
//
// Definitions, as HTA's. Each CPU thread's events nest by time into a call stack (sorted by
// start, the longer first at a tie; an event is the child of the innermost open one); an event's
// depth is its nesting level (0 at the top), and the backward thread's stack hangs under the main
// thread's "## backward ##" annotation (else its ProfilerStep#N) when the rank has exactly one
// main thread (with ProfilerStep#N) and one backward thread (with autograd:: events). The
// candidates are the CPU events whose name contains `op`; the roots are the candidates at the
// smallest depth among them that launch at least `min_length` GPU events in their subtree. A
// root's pattern is its name followed by the names of those GPU events (kernels, memcpys,
// memsets, by start). Per pattern: the roots, their GPU events' summed durations (HTA's "GPU
// kernel duration"), and the roots' summed durations ("CPU op duration"). Sorted by count, then
// by the pattern's text ("|"-joined), as HTA sorts.
//
// Differences: times are the file's ns in seconds (HTA: µs after its rounding); a launch whose
// correlation several GPU events share (a CUDA graph replay) contributes them all (HTA links one).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace_event.h"

namespace paratune {

struct KernelSequence {
  std::vector<std::string> pattern;  // the operator, then the GPU events it launched, by start
  int64_t count = 0;                 // root operators with this pattern
  double gpu_time_s = 0;             // their GPU events' summed durations
  double cpu_time_s = 0;             // the root operators' summed durations
};

// At most `top` patterns; none when no CPU event's name contains `op` or none launches
// `min_length` GPU events.
std::vector<KernelSequence> FrequentKernelSequences(const RankTrace& t, const std::string& op, int min_length, int top);

}  // namespace paratune
