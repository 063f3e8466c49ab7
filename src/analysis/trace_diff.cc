#include "analysis/trace_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/rank_rows.h"
#include "analysis/step_lookup.h"
#include "util/error.h"
#include "util/text.h"

namespace paratune {
namespace {

struct Tally {
  int64_t count = 0, total_ns = 0;
};

struct SideTally {
  std::map<std::string, Tally> by_name;
  DiffSide side;
};

bool OnCpu(const TraceEvent& e) { return e.stream < 0; }

// The iteration of each event of one rank (HTA's add_iteration, hta/common/trace.py).
std::vector<int64_t> IterationOfEvents(const RankTrace& t, const std::vector<Row>& rows) {
  std::vector<StepSpan> spans;
  for (const Row& r : rows)
    if (const int64_t n = ProfilerStepNumber(t.Name(t.events[r.index])); n >= 0) spans.push_back({r.ts, r.end, n});
  const StepLookup lookup(spans);
  std::vector<int64_t> step(rows.size(), -1);
  const CorrelationMap::Range range(t.events);
  CorrelationMap launch_step(range);
  for (const Row& r : rows) {
    const TraceEvent& e = t.events[r.index];
    if (OnCpu(e) || (e.stream == 0 && e.kind == EventKind::kCpuOp)) step[r.index] = lookup.StepAt(r.ts);
    if (OnCpu(e) && e.correlation >= 0) launch_step.Set(e.correlation, step[r.index]);
  }
  for (const Row& r : rows) {
    const TraceEvent& e = t.events[r.index];
    if (e.stream <= 0) continue;
    const int64_t s = launch_step.Get(e.correlation);
    step[r.index] = s == CorrelationMap::kAbsent ? -1 : s;
  }
  return step;
}

std::set<int64_t> StepsOf(const std::vector<RankTrace>& set) {
  std::set<int64_t> steps;
  for (const RankTrace& t : set)
    for (const std::string& name : t.names)
      if (const int64_t n = ProfilerStepNumber(name); n >= 0) steps.insert(n);
  return steps;
}

// The selection with HTA's defaults filled in; a rank or step not in the set is an InputError.
DiffSelection Resolve(const std::vector<RankTrace>& set, DiffSelection s, const char* label) {
  if (set.empty()) throw InputError(fmt::format("trace diff: the {} set has no ranks", label));
  const std::set<int64_t> steps = StepsOf(set);
  if (steps.empty())
    throw InputError(
        fmt::format("trace diff: the {} traces have no ProfilerStep#N spans (record them with "
                    "torch.profiler's schedule and prof.step())",
                    label));
  if (s.ranks.empty()) s.ranks = {set.front().rank};
  if (s.iterations.empty()) s.iterations = {*steps.begin()};
  for (int rank : s.ranks)
    if (std::none_of(set.begin(), set.end(), [&](const RankTrace& t) { return t.rank == rank; }))
      throw InputError(fmt::format("trace diff: rank {} is not in the {} traces", rank, label));
  for (int64_t it : s.iterations)
    if (!steps.contains(it))
      throw InputError(fmt::format("trace diff: ProfilerStep#{} is not in the {} traces (they hold {} to {})", it,
                                   label, *steps.begin(), *steps.rbegin()));
  return s;
}

void TallyRank(const RankTrace& t, const DiffSelection& sel, const TraceDiffOptions& o, SideTally& out) {
  const bool rounded = !o.exact_ns && t.fractional_ts;
  std::vector<Row> rows(t.events.size());
  for (size_t i = 0; i < t.events.size(); ++i) rows[i] = RowOf(t.events[i], static_cast<uint32_t>(i), rounded);
  const std::vector<int64_t> step = IterationOfEvents(t, rows);
  const std::set<int64_t> wanted(sel.iterations.begin(), sel.iterations.end());
  std::vector<Tally> by_id(t.names.size());
  for (const Row& r : rows) {
    const TraceEvent& e = t.events[r.index];
    if (!wanted.contains(step[r.index])) continue;
    if (const int64_t n = ProfilerStepNumber(t.Name(e)); n >= 0 && wanted.contains(n))
      out.side.step_time_s += static_cast<double>(r.end - r.ts) * kNsToS;
    if ((o.device == DiffDevice::kCpu && !OnCpu(e)) || (o.device == DiffDevice::kGpu && OnCpu(e))) continue;
    ++by_id[e.name].count;
    by_id[e.name].total_ns += r.end - r.ts;
    ++out.side.events;
  }
  for (size_t id = 0; id < by_id.size(); ++id) {
    if (by_id[id].count == 0) continue;
    Tally& into = out.by_name[o.short_names ? ShortOpName(t.names[id]) : t.names[id]];
    into.count += by_id[id].count;
    into.total_ns += by_id[id].total_ns;
  }
}

SideTally TallySide(const std::vector<RankTrace>& set, const DiffSelection& sel, const TraceDiffOptions& o) {
  SideTally out;
  out.side.selected = sel;
  for (const RankTrace& t : set)
    if (std::find(sel.ranks.begin(), sel.ranks.end(), t.rank) != sel.ranks.end()) TallyRank(t, sel, o, out);
  return out;
}

OpChange ChangeOf(int64_t control, int64_t test) {
  if (control == 0) return OpChange::kAdded;
  if (test == 0) return OpChange::kDeleted;
  return test > control ? OpChange::kIncreased : test < control ? OpChange::kDecreased : OpChange::kUnchanged;
}

// One side of a ParseDiffPair spec: "", "7", "3-5", "3-5,8".
std::vector<int64_t> ParseDiffList(std::string_view list, const std::string& flag) {
  constexpr int64_t kMaxRange = 100'000;
  std::vector<int64_t> out;
  if (list.empty()) return out;
  auto number = [&](std::string_view t) {
    int64_t n = 0;
    if (ParseInteger(t, &n) != NumberParse::kOk || n < 0)
      throw InputError(fmt::format("{}: {} is not a number from 0", flag, Quote(t)));
    return n;
  };
  for (size_t at = 0; at <= list.size();) {
    const size_t comma = std::min(list.find(',', at), list.size());
    const std::string_view item = list.substr(at, comma - at);
    const size_t dash = item.find('-', 1);
    const int64_t lo = number(dash == std::string_view::npos ? item : item.substr(0, dash));
    const int64_t hi = dash == std::string_view::npos ? lo : number(item.substr(dash + 1));
    if (hi < lo || hi - lo >= kMaxRange)
      throw InputError(fmt::format("{}: range {} must rise and hold at most {} numbers", flag, Quote(item), kMaxRange));
    for (int64_t n = lo; n <= hi; ++n) out.push_back(n);
    if (out.size() > static_cast<size_t>(kMaxRange))
      throw InputError(fmt::format("{}: more than {} numbers", flag, kMaxRange));
    at = comma + 1;
  }
  return out;
}

}  // namespace

std::pair<std::vector<int64_t>, std::vector<int64_t>> ParseDiffPair(std::string_view spec, const std::string& flag) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos) {
    std::vector<int64_t> both = ParseDiffList(spec, flag);
    return {both, both};
  }
  if (spec.find(':', colon + 1) != std::string_view::npos)
    throw InputError(fmt::format("{}: {} has more than one ':' (expected CONTROL:TEST)", flag, Quote(spec)));
  return {ParseDiffList(spec.substr(0, colon), flag), ParseDiffList(spec.substr(colon + 1), flag)};
}

int64_t TraceDiff::CountOf(OpChange change) const {
  return std::count_if(rows.begin(), rows.end(), [&](const OpDiffRow& r) { return r.change == change; });
}

TraceDiff DiffTraces(const std::vector<RankTrace>& control, const std::vector<RankTrace>& test,
                     const TraceDiffOptions& options) {
  const SideTally c = TallySide(control, Resolve(control, options.control, "control"), options);
  const SideTally t = TallySide(test, Resolve(test, options.test, "test"), options);
  TraceDiff d;
  d.control = c.side;
  d.test = t.side;
  d.device = options.device;
  d.short_names = options.short_names;
  std::map<std::string, OpDiffRow> rows;
  for (const auto& [name, tally] : c.by_name) {
    OpDiffRow& r = rows[name];
    r.control_count = tally.count;
    r.control_total_s = static_cast<double>(tally.total_ns) * kNsToS;
  }
  for (const auto& [name, tally] : t.by_name) {
    OpDiffRow& r = rows[name];
    r.test_count = tally.count;
    r.test_total_s = static_cast<double>(tally.total_ns) * kNsToS;
  }
  for (auto& [name, row] : rows) {
    row.name = name;
    row.change = ChangeOf(row.control_count, row.test_count);
    d.rows.push_back(std::move(row));
  }
  return d;
}

std::string ShortOpName(std::string_view name) {
  // HTA's MemoryKernelGroupingPattern (hta/common/types.py): ^(hip)?Memcpy, ^(hip)?Memset, ^dma.
  std::string_view own = name.starts_with("hip") ? name.substr(3) : name;
  if (own.starts_with("Memcpy") || own.starts_with("Memset") || name.starts_with("dma")) return std::string(name);
  if (name.find('<') == std::string_view::npos && name.find('(') == std::string_view::npos) return std::string(name);
  std::string s(name);
  for (size_t at; (at = s.find("->")) != std::string::npos;) s.erase(at, 2);
  std::string stack;
  for (char c : s) {
    if (c == '>' || c == ')') {
      const char open = c == '>' ? '<' : '(';
      while (!stack.empty() && stack.back() != open) stack.pop_back();
      if (!stack.empty()) stack.pop_back();
    } else {
      stack.push_back(c);
    }
  }
  const size_t space = stack.rfind(' ');
  return space == std::string::npos ? stack : stack.substr(space + 1);
}

}  // namespace paratune
