#include "analysis/kernel_sequences.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "analysis/rank_rows.h"

namespace paratune {
namespace {

// One CPU thread's call stack in preorder: event indices, their depths.
struct ThreadStack {
  std::vector<uint32_t> events;
  std::vector<int> depth;
  bool main = false, backward = false;
};

bool GpuWork(const TraceEvent& e) {
  return e.stream >= 0 &&
         (e.kind == EventKind::kKernel || e.kind == EventKind::kMemcpy || e.kind == EventKind::kMemset);
}

std::vector<ThreadStack> CallStacks(const RankTrace& t) {
  std::map<int32_t, ThreadStack> threads;
  for (uint32_t i = 0; i < t.events.size(); ++i)
    if (t.events[i].stream < 0) threads[t.events[i].tid].events.push_back(i);
  std::vector<ThreadStack> out;
  for (auto& [tid, s] : threads) {
    std::stable_sort(s.events.begin(), s.events.end(), [&](uint32_t a, uint32_t b) {
      const TraceEvent &x = t.events[a], &y = t.events[b];
      return x.ts_ns != y.ts_ns ? x.ts_ns < y.ts_ns : x.dur_ns > y.dur_ns;
    });
    std::vector<int64_t> open_ends;
    for (uint32_t i : s.events) {
      const TraceEvent& e = t.events[i];
      while (!open_ends.empty() && open_ends.back() <= e.ts_ns) open_ends.pop_back();
      s.depth.push_back(static_cast<int>(open_ends.size()));
      open_ends.push_back(e.ts_ns + std::max<int64_t>(e.dur_ns, 0));
      const std::string& name = t.Name(e);
      s.main = s.main || ProfilerStepNumber(name) >= 0;
      s.backward = s.backward || name.find("autograd::") != std::string::npos;
    }
    out.push_back(std::move(s));
  }
  return out;
}

// HTA's _link_main_and_bwd_stacks: with one main and one backward thread, the backward stack
// hangs one level under the main thread's "## backward ##" annotations, else its ProfilerSteps.
void LinkBackward(const RankTrace& t, std::vector<ThreadStack>& stacks) {
  ThreadStack *main = nullptr, *bwd = nullptr;
  int mains = 0, bwds = 0;
  for (ThreadStack& s : stacks) {
    if (s.main)
      main = &s, ++mains;
    else if (s.backward)
      bwd = &s, ++bwds;
  }
  if (mains != 1 || bwds != 1) return;
  for (const char* parent : {"## backward ##", "ProfilerStep#"}) {
    int depth = std::numeric_limits<int>::max();
    for (size_t k = 0; k < main->events.size(); ++k)
      if (t.Name(t.events[main->events[k]]).rfind(parent, 0) == 0) depth = std::min(depth, main->depth[k]);
    if (depth == std::numeric_limits<int>::max()) continue;
    for (int& d : bwd->depth) d += depth + 1;
    return;
  }
}

struct Tally {
  int64_t count = 0;
  double gpu_s = 0, cpu_s = 0;
};
using Launched = std::unordered_map<int64_t, std::vector<uint32_t>>;  // correlation -> GPU events

// The GPU events the subtree of s.events[k] launched (the following events deeper than it), by start.
std::vector<uint32_t> SubtreeLaunches(const RankTrace& t, const ThreadStack& s, size_t k, const Launched& launched) {
  std::vector<uint32_t> gpu;
  for (size_t j = k; j < s.events.size() && (j == k || s.depth[j] > s.depth[k]); ++j) {
    const int64_t c = t.events[s.events[j]].correlation;
    if (c < 0) continue;
    if (const auto it = launched.find(c); it != launched.end())
      gpu.insert(gpu.end(), it->second.begin(), it->second.end());
  }
  std::stable_sort(gpu.begin(), gpu.end(),
                   [&](uint32_t a, uint32_t b) { return t.events[a].ts_ns < t.events[b].ts_ns; });
  return gpu;
}

// The patterns by count, then by their "|"-joined text, at most `top`.
std::vector<KernelSequence> Ranked(const RankTrace& t, const std::map<std::vector<uint32_t>, Tally>& tallies, int top) {
  std::vector<std::pair<std::string, KernelSequence>> rows;
  for (const auto& [ids, tally] : tallies) {
    KernelSequence q{{}, tally.count, tally.gpu_s, tally.cpu_s};
    std::string text;
    for (uint32_t id : ids) {
      q.pattern.push_back(t.names[id]);
      text += (text.empty() ? "" : "|") + t.names[id];
    }
    rows.emplace_back(std::move(text), std::move(q));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.count != b.second.count ? a.second.count > b.second.count : a.first < b.first;
  });
  std::vector<KernelSequence> out;
  for (auto& [text, q] : rows)
    if (static_cast<int>(out.size()) < top) out.push_back(std::move(q));
  return out;
}

}  // namespace

std::vector<KernelSequence> FrequentKernelSequences(const RankTrace& t, const std::string& op, int min_length,
                                                    int top) {
  if (op.empty()) return {};
  std::vector<ThreadStack> stacks = CallStacks(t);
  LinkBackward(t, stacks);
  Launched launched;
  for (uint32_t i = 0; i < t.events.size(); ++i)
    if (GpuWork(t.events[i]) && t.events[i].correlation >= 0) launched[t.events[i].correlation].push_back(i);
  auto is_candidate = [&](uint32_t i) { return t.Name(t.events[i]).find(op) != std::string::npos; };

  int min_depth = std::numeric_limits<int>::max();
  for (const ThreadStack& s : stacks)
    for (size_t k = 0; k < s.events.size(); ++k)
      if (is_candidate(s.events[k])) min_depth = std::min(min_depth, s.depth[k]);

  std::map<std::vector<uint32_t>, Tally> tallies;  // pattern as name ids
  for (const ThreadStack& s : stacks)
    for (size_t k = 0; k < s.events.size(); ++k) {
      if (s.depth[k] != min_depth || !is_candidate(s.events[k])) continue;
      const std::vector<uint32_t> gpu = SubtreeLaunches(t, s, k, launched);
      if (static_cast<int64_t>(gpu.size()) < min_length) continue;
      const TraceEvent& root = t.events[s.events[k]];
      std::vector<uint32_t> pattern = {root.name};
      double gpu_s = 0;
      for (uint32_t g : gpu) {
        pattern.push_back(t.events[g].name);
        gpu_s += static_cast<double>(t.events[g].dur_ns) * 1e-9;
      }
      Tally& x = tallies[pattern];
      ++x.count;
      x.gpu_s += gpu_s;
      x.cpu_s += static_cast<double>(root.dur_ns) * 1e-9;
    }
  return Ranked(t, tallies, top);
}

}  // namespace paratune
