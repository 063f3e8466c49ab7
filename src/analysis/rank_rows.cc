#include "analysis/rank_rows.h"

#include <algorithm>

namespace paratune {

NsIntervals MergeNs(NsIntervals v) {
  std::sort(v.begin(), v.end());
  NsIntervals out;
  for (const auto& [a, b] : v) {
    if (b <= a) continue;
    if (!out.empty() && a <= out.back().second)
      out.back().second = std::max(out.back().second, b);
    else
      out.emplace_back(a, b);
  }
  return out;
}

int64_t ProfilerStepNumber(std::string_view name) {
  static constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.size() <= kPrefix.size() || name.compare(0, kPrefix.size(), kPrefix) != 0) return -1;
  int64_t n = 0;
  size_t i = kPrefix.size();
  if (name[i] < '0' || name[i] > '9') return -1;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && n < (int64_t{1} << 50); ++i)
    n = n * 10 + (name[i] - '0');
  return n;
}

bool IsDataLoaderOp(std::string_view name) {
  return name.find("DataLoader") != std::string_view::npos || name.find("dataloader") != std::string_view::npos;
}

CorrelationMap::Range::Range(const std::vector<TraceEvent>& events) {
  for (const TraceEvent& e : events)
    if (e.correlation >= 0) lo = std::min(lo, e.correlation), hi = std::max(hi, e.correlation), ++n;
}

CorrelationMap::CorrelationMap(const Range& r) {
  if (r.n > 0 && r.hi - r.lo < 4 * r.n + (1 << 20)) {
    lo_ = r.lo;
    dense_.assign(static_cast<size_t>(r.hi - r.lo + 1), kAbsent);
  }
}

NameFacts::NameFacts(const std::vector<std::string>& names)
    : type(names.size()), step(names.size()), sync(names.size()), loader(names.size()), launch(names.size()) {
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    type[i] = HtaKernelTypeOf(n);
    step[i] = ProfilerStepNumber(n);
    sync[i] = n == "Event Sync" || n == "Context Sync";
    loader[i] = IsDataLoaderOp(n);
    launch[i] =
        n == "cudaLaunchKernel" || n == "cudaLaunchKernelExC" || n == "cudaMemcpyAsync" || n == "cudaMemsetAsync";
  }
}

RankRows::RankRows(const RankTrace& t) : trace(&t), names(t.names), corr_range(t.events), launch_ts(corr_range) {}

std::vector<HtaKernelType> RankRows::TypesOf(const std::vector<Row>& rows) const {
  std::vector<HtaKernelType> v(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) v[i] = names.type[Event(rows[i]).name];
  return v;
}

}  // namespace paratune
