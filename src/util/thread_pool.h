// The one way paratune runs work on several cores: ParallelFor over the indices 0..n-1 with a cap
// on the threads. Used to read trace files in parallel (trace/trace_set.cc) and to analyse ranks
// in parallel (analysis/trace_analysis.cc).
#pragma once

#include <cstddef>
#include <functional>

namespace paratune {

// The threads ParallelFor uses for `n` items under `max_threads` (0: one per hardware thread):
// at least 1, at most n.
unsigned ParallelThreads(size_t n, int max_threads);

// Calls body(i) once for every i in [0, n), on up to ParallelThreads(n, max_threads) threads (the
// calling thread is one of them); items are handed out in increasing order as threads become
// free. Returns when all are done. If any body throws, every other item still runs and the
// exception of the lowest index is rethrown, so errors do not depend on scheduling.
void ParallelFor(size_t n, int max_threads, const std::function<void(size_t)>& body);

}  // namespace paratune
