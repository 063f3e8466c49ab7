#include "analysis/kernels.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "util/stats.h"

namespace paratune {
namespace {

// Index of a type in the three tables (COMPUTATION, COMMUNICATION, MEMORY); -1 for OTHER.
int TypeIndex(HtaKernelType t) {
  return t == HtaKernelType::kComputation     ? 0
         : t == HtaKernelType::kCommunication ? 1
         : t == HtaKernelType::kMemory        ? 2
                                              : -1;
}

struct NameStats {
  int64_t count = 0;
  double sum = 0, max = 0, min = 0;
  std::vector<double> durs;  // for an exact sample std
};

}  // namespace

std::vector<KernelTypeShare> KernelTypeBreakdown(const RankRows& rows) {
  NsIntervals sets[3];
  for (size_t i = 0; i < rows.gpu.size(); ++i) {
    const int k = TypeIndex(rows.gpu_types[i]);
    if (k >= 0) sets[k].emplace_back(rows.gpu[i].ts, rows.gpu[i].end);
  }
  for (auto& s : sets) s = MergeNs(std::move(s));
  std::vector<std::pair<int64_t, int>> edges;  // (time, +/- (type+1))
  for (int k = 0; k < 3; ++k)
    for (const auto& [a, b] : sets[k]) {
      edges.emplace_back(a, k + 1);
      edges.emplace_back(b, -(k + 1));
    }
  std::sort(edges.begin(), edges.end());
  double sums[8] = {};
  int active[3] = {};
  int64_t prev = edges.empty() ? 0 : edges[0].first;
  for (const auto& [t, d] : edges) {
    int mask = 0;
    for (int k = 0; k < 3; ++k)
      if (active[k] > 0) mask |= 1 << k;
    if (mask) sums[mask] += static_cast<double>(t - prev) * kNsToS;
    if (d > 0)
      ++active[d - 1];
    else
      --active[-d - 1];
    prev = t;
  }
  static const char* kNames[3] = {"COMPUTATION", "COMMUNICATION", "MEMORY"};
  std::vector<KernelTypeShare> out;
  for (int mask = 1; mask < 8; ++mask) {
    if (sums[mask] <= 0) continue;
    std::string label;
    for (int k = 0; k < 3; ++k)
      if (mask & (1 << k)) label += (label.empty() ? "" : " overlapping ") + std::string(kNames[k]);
    out.push_back({label, sums[mask]});
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.sum_s > b.sum_s; });
  return out;
}

std::vector<HtaKernelRow> HtaKernelRows(HtaKernelType type, const std::vector<KernelStat>& stats, int num_kernels,
                                        double duration_ratio) {
  std::vector<KernelStat> s = stats;
  std::stable_sort(s.begin(), s.end(), [](const auto& a, const auto& b) { return a.sum_s > b.sum_s; });
  std::vector<HtaKernelRow> rows;
  if (static_cast<int>(s.size()) <= num_kernels) {
    for (const auto& k : s) rows.push_back({k.name, type, k.sum_s, k.max_s, k.min_s, k.mean_s, k.stddev_s});
    return rows;
  }
  std::vector<double> running;
  double acc = 0;
  for (const auto& k : s) running.push_back(acc += k.sum_s);
  const double q = Quantile(running, duration_ratio);
  std::vector<double> others;
  for (size_t i = 0; i < s.size(); ++i) {
    if (running[i] > q || static_cast<int>(i) >= num_kernels) {
      others.push_back(s[i].sum_s);
    } else {
      rows.push_back({s[i].name, type, s[i].sum_s, s[i].sum_s, s[i].sum_s, s[i].sum_s, 0});
    }
  }
  if (!others.empty()) {
    double sum = 0, mx = others[0], mn = others[0];
    for (double x : others) sum += x, mx = std::max(mx, x), mn = std::min(mn, x);
    rows.push_back({"others", type, sum, mx, mn, sum / static_cast<double>(others.size()), SampleStdDev(others)});
  }
  return rows;
}

KernelTables KernelStatistics(const RankRows& rows, int top_kernels, double duration_ratio) {
  const RankTrace& t = *rows.trace;
  std::unordered_map<uint32_t, NameStats> by_name;
  for (size_t i = 0; i < rows.gpu.size(); ++i) {
    if (rows.gpu_types[i] == HtaKernelType::kOther) continue;
    const Row& g = rows.gpu[i];
    const double d = static_cast<double>(g.end - g.ts) * kNsToS;
    NameStats& s = by_name[rows.Event(g).name];
    if (s.count == 0) s.max = s.min = d;
    ++s.count;
    s.sum += d;
    s.max = std::max(s.max, d);
    s.min = std::min(s.min, d);
    s.durs.push_back(d);
  }
  std::vector<KernelStat> per_type[3];
  std::map<KernelCategory, CategoryShare> cats;
  for (auto& [name, s] : by_name) {
    KernelStat k;
    k.name = t.names[name];
    k.type = rows.names.type[name];
    k.count = s.count;
    k.sum_s = s.sum;
    k.max_s = s.max;
    k.min_s = s.min;
    k.mean_s = s.sum / static_cast<double>(s.count);
    k.stddev_s = SampleStdDev(s.durs);
    const EventKind kind = k.type == HtaKernelType::kMemory
                               ? (k.name.rfind("Memset", 0) == 0 ? EventKind::kMemset : EventKind::kMemcpy)
                               : EventKind::kKernel;
    k.category = KernelCategoryOf(k.name, kind);
    CategoryShare& c = cats[k.category];
    c.category = k.category;
    c.count += k.count;
    c.sum_s += k.sum_s;
    per_type[TypeIndex(k.type)].push_back(std::move(k));
  }
  KernelTables out;
  const HtaKernelType kTypes[3] = {HtaKernelType::kComputation, HtaKernelType::kCommunication, HtaKernelType::kMemory};
  for (int ti = 0; ti < 3; ++ti) {
    auto hta = HtaKernelRows(kTypes[ti], per_type[ti], top_kernels, duration_ratio);
    out.hta_kernel_table.insert(out.hta_kernel_table.end(), hta.begin(), hta.end());
    auto& v = per_type[ti];
    std::sort(v.begin(), v.end(),
              [](const auto& a, const auto& b) { return a.sum_s != b.sum_s ? a.sum_s > b.sum_s : a.name < b.name; });
    for (size_t i = 0; i < v.size() && static_cast<int>(i) < top_kernels; ++i) out.top_kernels.push_back(v[i]);
  }
  for (auto& [c, share] : cats) out.categories.push_back(share);
  std::sort(out.categories.begin(), out.categories.end(),
            [](const auto& a, const auto& b) { return a.sum_s > b.sum_s; });
  return out;
}

}  // namespace paratune
