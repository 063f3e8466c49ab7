// StepLookup: which ProfilerStep#N a CPU-side timestamp belongs to, by HTA's rule
// (hta/common/trace.py add_iteration): the step whose span [ts, ts + dur) holds it; where spans
// overlap, the last in file order. The spans' boundaries cut the time axis into pieces, each with
// its step, so a lookup is one binary search.
#pragma once

#include <cstdint>
#include <vector>

namespace paratune {

struct StepSpan {
  int64_t ts = 0, end = 0, step = 0;  // ns; ProfilerStep number
};

class StepLookup {
 public:
  explicit StepLookup(const std::vector<StepSpan>& spans_in_file_order);
  int64_t StepAt(int64_t ts) const;  // -1: in no step

 private:
  std::vector<int64_t> cuts_;    // piece i is [cuts_[i], cuts_[i + 1])
  std::vector<int64_t> winner_;  // its step, -1: none
};

}  // namespace paratune
