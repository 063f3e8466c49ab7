#include "util/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace paratune {

unsigned ParallelThreads(size_t n, int max_threads) {
  unsigned threads = max_threads > 0 ? static_cast<unsigned>(max_threads) : std::thread::hardware_concurrency();
  if (n < threads) threads = static_cast<unsigned>(n);
  return std::max(1u, threads);
}

void ParallelFor(size_t n, int max_threads, const std::function<void(size_t)>& body) {
  if (n == 0) return;
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        body(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const unsigned threads = ParallelThreads(n, max_threads);
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace paratune
