// Closed-form pipeline schedule time for 1F1B and interleaved 1F1B (Narayanan et al., SC'21,
// arXiv 2104.04473, Sec. 2.2.1-2.2.2), until the event simulator replaces it.
#pragma once

#include <cstdint>
#include <vector>

namespace paratune {

struct PipelineTime {
  double ideal_s = 0;   // m x the slowest rank's time per micro-batch
  double bubble_s = 0;  // fill and drain
  double total() const { return ideal_s + bubble_s; }
};

// `rank_s[i]`: forward + backward time of one micro-batch on pipeline rank i (all its virtual
// stages). 1F1B: the slowest rank runs m micro-batches, and the fill and drain pass once
// through every other rank: bubble = sum(t) - max(t). Interleaving with vp virtual stages
// divides the fill and drain by vp. Balanced ranks: bubble / ideal = (pp-1) / (vp*m).
PipelineTime ClosedFormPipeline(const std::vector<double>& rank_s, int64_t m, int vp);

// (pp-1) / (vp*m): bubble time over ideal time for balanced stages.
double BubbleOverIdeal(int pp, int vp, int64_t m);

}  // namespace paratune
