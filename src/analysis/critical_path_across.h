// SetCollectiveWaits: the cross-rank edge of the critical path, beyond HTA's single-rank graph.
// A collective cannot end on any rank before the last rank of its group has arrived, so the part
// of a communication kernel on this rank's critical path that is waiting is the other rank's
// critical path, not this one's. The collectives are matched across ranks as the stragglers are
// (stragglers.h: by kind and process group, n-th with n-th, from kernel durations only, so clock
// offsets between ranks do not matter): for each kernel on a rank's path, the wait is its
// duration minus the shortest duration of the matched collective, charged to the rank that had
// that shortest kernel (it arrived last; none when several share the minimum). TraceLens
// (AMD-AGI/TraceLens, its NCCL analyser's straggler summary) reads the same "min duration =
// transfer, excess = wait" split from the same kernels.
#pragma once

#include <vector>

#include "analysis/trace_analysis.h"

namespace paratune {

// Fills collective_wait_s and waited_for of each part's critical path (with two or more ranks).
void SetCollectiveWaits(std::vector<RankPart>& parts);

}  // namespace paratune
