// CallStack: one CPU thread's events nested by time as HTA's CallStackGraph nests them
// (hta/common/call_stack.py at f4d0062, used by its critical-path analysis): each event is split
// into a start and an end, sorted by compare_events (time; at a tie starts before ends, the
// longer start first and the shorter end first, then by index), a start becomes the child of
// the top of the stack and an end pops the top (whichever event it is, as HTA does). The walk is
// HTA's dfs_traverse: enter a node, its children in order, exit it; iterative, so that any
// nesting depth is safe.
#pragma once

#include <cstdint>
#include <vector>

namespace paratune {

struct StackEvent {
  uint32_t index = 0;  // the event (HTA's dataframe index)
  int64_t ts = 0;
  int64_t dur = 0;  // negative durations count as 0
};

// One step of the walk: entering or leaving `index`, whose parent is `parent` (-1: the root).
struct StackStep {
  uint32_t index = 0;
  int64_t parent = -1;
  bool enter = true;
};

// `events` in index order (the order HTA's dataframe rows come in). The root is not reported.
std::vector<StackStep> WalkCallStack(const std::vector<StackEvent>& events);

}  // namespace paratune
