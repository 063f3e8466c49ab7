#include "cli/trace_diff_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/rank_rows.h"

namespace paratune::cli {
namespace {

std::string Numbers(const std::vector<int64_t>& v) {
  if (v.size() == 1) return fmt::format("{}", v.front());
  const bool consecutive = v.back() - v.front() + 1 == static_cast<int64_t>(v.size());
  if (consecutive) return fmt::format("{}-{}", v.front(), v.back());
  return fmt::format("{}", fmt::join(v, ","));
}

std::string SideText(const DiffSide& s) {
  std::vector<int64_t> ranks(s.selected.ranks.begin(), s.selected.ranks.end());
  return fmt::format("rank {}, ProfilerStep#{} ({} events, steps {:.3f} ms)", Numbers(ranks),
                     Numbers(s.selected.iterations), s.events, s.step_time_s * 1e3);
}

std::string Trim(const std::string& s, size_t width) { return s.size() <= width ? s : s.substr(0, width - 3) + "..."; }

}  // namespace

std::string FormatTraceDiff(const TraceDiff& d, int top) {
  std::string out = "\nTrace diff (HTA's TraceDiff definitions)\n";
  out += fmt::format("  control: {}\n  test:    {}\n", SideText(d.control), SideText(d.test));
  out += fmt::format("  {} events, {} names:", kDiffDeviceNames.Name(d.device), d.short_names ? "short" : "full");
  for (const auto& [change, name] : kOpChangeNames.entries) out += fmt::format(" {} {},", name, d.CountOf(change));
  out.back() = '\n';
  std::vector<const OpDiffRow*> rows;
  for (const OpDiffRow& r : d.rows)
    if (ProfilerStepNumber(r.name) < 0 && (r.change != OpChange::kUnchanged || r.test_total_s != r.control_total_s))
      rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const OpDiffRow* a, const OpDiffRow* b) {
    return std::fabs(a->test_total_s - a->control_total_s) > std::fabs(b->test_total_s - b->control_total_s);
  });
  if (rows.size() > static_cast<size_t>(top)) rows.resize(static_cast<size_t>(top));
  if (rows.empty()) return out + "  no name changed in count or time\n";
  out += "  largest changes in total time:\n";
  out += fmt::format("  {:<10} {:>9} {:>9} {:>12} {:>12} {:>12}  {}\n", "change", "control n", "test n", "control ms",
                     "test ms", "diff ms", "name");
  for (const OpDiffRow* r : rows)
    out += fmt::format("  {:<10} {:>9} {:>9} {:>12.3f} {:>12.3f} {:>+12.3f}  {}\n", kOpChangeNames.Name(r->change),
                       r->control_count, r->test_count, r->control_total_s * 1e3, r->test_total_s * 1e3,
                       (r->test_total_s - r->control_total_s) * 1e3, Trim(r->name, 80));
  return out;
}

}  // namespace paratune::cli
