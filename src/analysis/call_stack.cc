#include "analysis/call_stack.h"

#include <algorithm>
#include <unordered_map>

namespace paratune {
namespace {

struct Point {
  uint32_t index = 0;
  int64_t time = 0;
  int64_t dur = 0;
  bool start = true;
};

// compare_events(x, y) < 0 (call_stack.py), used as Python's sort uses it.
bool Before(const Point& x, const Point& y) {
  if (x.index == y.index) return x.start && !y.start;
  if (x.time != y.time) return x.time < y.time;
  if (x.start == y.start) {
    if (x.start) return x.dur == y.dur ? x.index < y.index : x.dur > y.dur;
    return x.dur == y.dur ? x.index > y.index : x.dur < y.dur;
  }
  if (x.dur > 0 && y.dur > 0) return !x.start;  // an end before a start at the same time
  if (x.dur == 0 && y.dur == 0) return x.index < y.index;
  return x.start;
}

}  // namespace

std::vector<StackStep> WalkCallStack(const std::vector<StackEvent>& events) {
  std::vector<Point> points;
  points.reserve(events.size() * 2);
  for (const StackEvent& e : events) {
    const int64_t dur = std::max<int64_t>(e.dur, 0);
    points.push_back({e.index, e.ts, dur, true});
    points.push_back({e.index, e.ts + dur, dur, false});
  }
  std::stable_sort(points.begin(), points.end(), Before);

  // _construct_call_stack_graph: children in the order their starts come.
  std::unordered_map<uint32_t, std::vector<uint32_t>> children;
  std::vector<uint32_t> roots;
  std::unordered_map<uint32_t, int64_t> parent;
  std::vector<uint32_t> stack;
  for (const Point& p : points) {
    if (p.start) {
      if (parent.count(p.index)) continue;  // HTA: "node already existed"
      const int64_t up = stack.empty() ? -1 : static_cast<int64_t>(stack.back());
      parent[p.index] = up;
      (up < 0 ? roots : children[static_cast<uint32_t>(up)]).push_back(p.index);
      stack.push_back(p.index);
    } else if (!stack.empty()) {
      stack.pop_back();
    }
  }

  // dfs_traverse from the root, iteratively: (node, next child) frames.
  std::vector<StackStep> walk;
  walk.reserve(events.size() * 2);
  struct Frame {
    const std::vector<uint32_t>* kids;
    size_t next;
    int64_t node;
  };
  std::vector<Frame> frames{{&roots, 0, -1}};
  static const std::vector<uint32_t> kNoKids;
  while (!frames.empty()) {
    Frame& top = frames.back();
    if (top.next < top.kids->size()) {
      const uint32_t c = (*top.kids)[top.next++];
      walk.push_back({c, top.node, true});
      const auto it = children.find(c);
      frames.push_back({it == children.end() ? &kNoKids : &it->second, 0, static_cast<int64_t>(c)});
      continue;
    }
    if (top.node >= 0)
      walk.push_back({static_cast<uint32_t>(top.node), parent[static_cast<uint32_t>(top.node)], false});
    frames.pop_back();
  }
  return walk;
}

}  // namespace paratune
