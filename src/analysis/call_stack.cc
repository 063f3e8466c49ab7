#include "analysis/call_stack.h"

#include <algorithm>

namespace paratune {
namespace {

struct Point {
  uint32_t index = 0;  // position in the input
  int64_t time = 0;
  int64_t dur = 0;
  bool start = true;
  uint32_t event = 0;  // the event (HTA's index), which compare_events orders by
};

// compare_events(x, y) < 0 (call_stack.py), used as Python's sort uses it.
bool Before(const Point& x, const Point& y) {
  if (x.index == y.index) return x.start && !y.start;
  if (x.time != y.time) return x.time < y.time;
  if (x.start == y.start) {
    if (x.start) return x.dur == y.dur ? x.event < y.event : x.dur > y.dur;
    return x.dur == y.dur ? x.event > y.event : x.dur < y.dur;
  }
  if (x.dur > 0 && y.dur > 0) return !x.start;  // an end before a start at the same time
  if (x.dur == 0 && y.dur == 0) return x.event < y.event;
  return x.start;
}

}  // namespace

std::vector<StackStep> WalkCallStack(const std::vector<StackEvent>& events) {
  // Points name events by their position k in `events` (index = events[k].index).
  std::vector<Point> points;
  points.reserve(events.size() * 2);
  for (size_t k = 0; k < events.size(); ++k) {
    const StackEvent& e = events[k];
    const int64_t dur = std::max<int64_t>(e.dur, 0);
    points.push_back({static_cast<uint32_t>(k), e.ts, dur, true, e.index});
    points.push_back({static_cast<uint32_t>(k), e.ts + dur, dur, false, e.index});
  }
  std::stable_sort(points.begin(), points.end(), Before);

  // _construct_call_stack_graph: children in the order their starts come (first child / next
  // sibling lists; position events.size() is the root).
  const size_t n = events.size(), root = n;
  std::vector<int64_t> parent(n, -2), first(n + 1, -1), last(n + 1, -1), next(n, -1);
  std::vector<uint32_t> stack;
  for (const Point& p : points) {
    if (p.start) {
      if (parent[p.index] != -2) continue;  // HTA: "node already existed"
      const size_t up = stack.empty() ? root : stack.back();
      parent[p.index] = up == root ? -1 : static_cast<int64_t>(up);
      (last[up] < 0 ? first[up] : next[static_cast<size_t>(last[up])]) = p.index;
      last[up] = p.index;
      stack.push_back(p.index);
    } else if (!stack.empty()) {
      stack.pop_back();
    }
  }

  // dfs_traverse from the root, iteratively: the stack of nodes entered and not yet left.
  std::vector<StackStep> walk;
  walk.reserve(n * 2);
  auto parent_event = [&](int64_t k) {
    return parent[static_cast<size_t>(k)] < 0
               ? int64_t{-1}
               : int64_t{events[static_cast<size_t>(parent[static_cast<size_t>(k)])].index};
  };
  std::vector<int64_t> open;
  int64_t at = first[root];
  while (at >= 0 || !open.empty()) {
    if (at >= 0) {  // enter `at`, then its first child
      walk.push_back({events[static_cast<size_t>(at)].index, parent_event(at), true});
      open.push_back(at);
      at = first[static_cast<size_t>(at)];
      continue;
    }
    const int64_t done = open.back();  // no more children: leave it, go to its next sibling
    open.pop_back();
    walk.push_back({events[static_cast<size_t>(done)].index, parent_event(done), false});
    at = next[static_cast<size_t>(done)];
  }
  return walk;
}

}  // namespace paratune
