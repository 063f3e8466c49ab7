#include "analysis/trace_analysis.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <set>
#include <thread>
#include <unordered_map>

#include "timeline/breakdown.h"

namespace paratune {
namespace {

constexpr double kNsToS = 1e-9;

// One event as the analysis sees it: times after the optional HTA rounding.
struct Row {
  int64_t ts = 0;   // ns
  int64_t end = 0;  // ns
  uint32_t index = 0;  // into RankTrace::events
};

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// ProfilerStep#N -> N, or -1.
int64_t ProfilerStepNumber(const std::string& name) {
  static constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.size() <= kPrefix.size() || name.compare(0, kPrefix.size(), kPrefix) != 0) return -1;
  int64_t n = 0;
  size_t i = kPrefix.size();
  if (name[i] < '0' || name[i] > '9') return -1;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && n < (int64_t{1} << 50); ++i) n = n * 10 + (name[i] - '0');
  return n;  // HTA's regex ^ProfilerStep#(\d+) needs only a prefix
}

bool IsDataLoaderOp(const std::string& name) {
  return name.find("DataLoader") != std::string::npos || name.find("dataloader") != std::string::npos;
}

// Merged union of [ts, end) intervals, ns; zero-length ones dropped.
std::vector<std::pair<int64_t, int64_t>> MergeNs(std::vector<std::pair<int64_t, int64_t>> v) {
  std::sort(v.begin(), v.end());
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const auto& [a, b] : v) {
    if (b <= a) continue;
    if (!out.empty() && a <= out.back().second) out.back().second = std::max(out.back().second, b);
    else out.emplace_back(a, b);
  }
  return out;
}

// HTA's kernel_type_df labels: time labelled by the set of kernel types active.
std::vector<KernelTypeShare> KernelTypeSweep(const std::vector<std::pair<int64_t, int64_t>> (&sets)[3]) {
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
    if (d > 0) ++active[d - 1];
    else --active[-d - 1];
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

// Quantile with linear interpolation (pandas Series.quantile default) of sorted values.
double SortedQuantile(const std::vector<double>& v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return SortedQuantile(v, q);
}

struct NameStats {
  int64_t count = 0;
  double sum = 0, max = 0, min = 0;
  std::vector<double> durs;  // for an exact sample std
};

double SampleStd(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

// HTA's kernel_df for one type of one rank (see hta_reference/README.md, get_gpu_kernel_breakdown).
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
    rows.push_back({"others", type, sum, mx, mn, sum / static_cast<double>(others.size()), SampleStd(others)});
  }
  return rows;
}

GpuTimeBreakdown Temporal(const std::vector<Row>& rows, const std::vector<HtaKernelType>& types, int64_t origin) {
  if (rows.empty()) return {};
  int64_t first = rows[0].ts, last = rows[0].end;
  std::vector<Interval> comp, other;
  comp.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    first = std::min(first, r.ts);
    last = std::max(last, r.end);
    const Interval iv{static_cast<double>(r.ts - origin) * kNsToS, static_cast<double>(r.end - origin) * kNsToS};
    (types[i] == HtaKernelType::kComputation ? comp : other).push_back(iv);
  }
  const double start_s = static_cast<double>(first - origin) * kNsToS, end_s = static_cast<double>(last - origin) * kNsToS;
  // The shared breakdown (timeline/breakdown.h).
  return BreakdownIntervals(comp, other, start_s, end_s);
}

// |U(comp) ∩ U(comm)| / |U(comm)| in percent; NaN without communication.
double Overlap(const std::vector<Row>& rows, const std::vector<HtaKernelType>& types, int64_t origin) {
  std::vector<Interval> comp, comm;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Interval iv{static_cast<double>(rows[i].ts - origin) * kNsToS, static_cast<double>(rows[i].end - origin) * kNsToS};
    if (types[i] == HtaKernelType::kComputation) comp.push_back(iv);
    else if (types[i] == HtaKernelType::kCommunication) comm.push_back(iv);
  }
  if (comm.empty()) return std::numeric_limits<double>::quiet_NaN();
  return BreakdownIntervals(comp, comm, 0, 0).overlap_pct();
}

// correlation id -> value. Kineto's and CUPTI's correlation ids are small consecutive integers,
// so a flat array indexed by (id - min) replaces hashing when the ids are dense enough; sparse
// ids fall back to a hash map.
class CorrelationMap {
 public:
  static constexpr int64_t kAbsent = std::numeric_limits<int64_t>::min();
  // The range of the correlation ids of a trace's events: computed once, shared by the maps.
  struct Range {
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min(), n = 0;
    explicit Range(const std::vector<TraceEvent>& events) {
      for (const TraceEvent& e : events)
        if (e.correlation >= 0) lo = std::min(lo, e.correlation), hi = std::max(hi, e.correlation), ++n;
    }
  };
  explicit CorrelationMap(const Range& r) {
    if (r.n > 0 && r.hi - r.lo < 4 * r.n + (1 << 20)) {
      lo_ = r.lo;
      dense_.assign(static_cast<size_t>(r.hi - r.lo + 1), kAbsent);
    }
  }
  void Set(int64_t corr, int64_t v) {
    if (!dense_.empty()) dense_[static_cast<size_t>(corr - lo_)] = v;
    else sparse_[corr] = v;
  }
  int64_t Get(int64_t corr) const {
    if (corr < 0) return kAbsent;
    if (!dense_.empty()) {
      const int64_t i = corr - lo_;
      return (i < 0 || i >= static_cast<int64_t>(dense_.size())) ? kAbsent : dense_[static_cast<size_t>(i)];
    }
    const auto it = sparse_.find(corr);
    return it == sparse_.end() ? kAbsent : it->second;
  }

 private:
  int64_t lo_ = 0;
  std::vector<int64_t> dense_;
  std::unordered_map<int64_t, int64_t> sparse_;
};

// HTA's temporal breakdown and overlap of `rows`, whose kernel types are `types`.
struct RowsBreakdown {
  GpuTimeBreakdown temporal;
  double overlap_pct = std::numeric_limits<double>::quiet_NaN();
};

RowsBreakdown BreakdownRows(const std::vector<Row>& rows, const std::vector<HtaKernelType>& types, int64_t origin) {
  return {Temporal(rows, types, origin), Overlap(rows, types, origin)};
}

struct RankContext {
  const RankTrace* trace = nullptr;
  bool filter_last_step = false;
  const AnalysisOptions* options = nullptr;
};

RankAnalysis AnalyzeRank(const RankContext& ctx) {
  const RankTrace& t = *ctx.trace;
  const AnalysisOptions& opt = *ctx.options;
  RankAnalysis ra;
  ra.rank = t.rank;
  ra.path = t.path;
  ra.device_name = t.device_name;
  ra.events = static_cast<int64_t>(t.events.size());
  ra.warnings = t.warnings;
  ra.rounded = opt.rounding == TimeRounding::kHta && t.fractional_ts;

  // Per-name classification, once per distinct name.
  std::vector<HtaKernelType> name_type(t.names.size());
  std::vector<int64_t> name_step(t.names.size());
  std::vector<uint8_t> name_sync(t.names.size()), name_loader(t.names.size()), name_launch(t.names.size());
  for (size_t i = 0; i < t.names.size(); ++i) {
    const std::string& n = t.names[i];
    name_type[i] = HtaKernelTypeOf(n);
    name_step[i] = ProfilerStepNumber(n);
    name_sync[i] = n == "Event Sync" || n == "Context Sync";
    name_loader[i] = IsDataLoaderOp(n);
    name_launch[i] = n == "cudaLaunchKernel" || n == "cudaLaunchKernelExC" || n == "cudaMemcpyAsync" || n == "cudaMemsetAsync";
  }

  // Rows with HTA's optional rounding.
  std::vector<Row> all(t.events.size());
  for (size_t i = 0; i < t.events.size(); ++i) {
    const TraceEvent& e = t.events[i];
    Row& r = all[i];
    r.index = static_cast<uint32_t>(i);
    if (ra.rounded) {
      // HTA's arithmetic is pandas float64 on µs (hta/common/trace_parser.py, round_down_time_stamps):
      // end = floor(ts + dur), ts = ceil(ts). At epoch scale (1.7e15 µs) a double resolves only
      // 0.25 µs, so the rounding is reproduced in double, not in exact ns.
      const double ts_us = static_cast<double>(FloorDiv(e.ts_ns, 1000)) + static_cast<double>(e.ts_ns - FloorDiv(e.ts_ns, 1000) * 1000) / 1000.0;
      const double dur_us = static_cast<double>(e.dur_ns) / 1000.0;
      r.end = static_cast<int64_t>(std::floor(ts_us + dur_us)) * 1000;
      r.ts = static_cast<int64_t>(std::ceil(ts_us)) * 1000;
    } else {
      r.ts = e.ts_ns;
      r.end = e.ts_ns + e.dur_ns;
    }
  }
  auto ev = [&](const Row& r) -> const TraceEvent& { return t.events[r.index]; };
  auto gpu_side = [&](const TraceEvent& e) { return (e.stream >= 0 && e.correlation >= 0) || name_sync[e.name]; };

  // Launch time of each correlation: the last CPU-side row with it, on the unfiltered table.
  const CorrelationMap::Range corr_range(t.events);
  CorrelationMap launch_ts(corr_range);
  for (const Row& r : all) {
    const TraceEvent& e = ev(r);
    if (e.correlation >= 0 && !gpu_side(e)) launch_ts.Set(e.correlation, r.ts);
  }

  // HTA's last-step filter.
  std::vector<Row> kept;
  if (ctx.filter_last_step) {
    int64_t last_start = std::numeric_limits<int64_t>::min();
    bool any_step = false;
    int64_t min_cpu = std::numeric_limits<int64_t>::max();
    for (const Row& r : all) {
      const TraceEvent& e = ev(r);
      if (gpu_side(e)) continue;
      min_cpu = std::min(min_cpu, r.ts);
      if (name_step[e.name] >= 0) {
        any_step = true;
        last_start = std::max(last_start, r.ts);
      }
    }
    if (!any_step) last_start = min_cpu;
    CorrelationMap kept_corr(corr_range);
    kept.reserve(all.size());
    for (const Row& r : all) {
      const TraceEvent& e = ev(r);
      if (!gpu_side(e) && r.ts < last_start) {
        kept.push_back(r);
        if (e.correlation >= 0) kept_corr.Set(e.correlation, 1);
      }
    }
    for (const Row& r : all) {
      const TraceEvent& e = ev(r);
      if (gpu_side(e) && kept_corr.Get(e.correlation) != CorrelationMap::kAbsent) kept.push_back(r);
    }
  } else {
    kept = std::move(all);  // `all` is not used past the filter
  }

  // The GPU event set: stream != -1.
  std::vector<Row> gpu;
  for (const Row& r : kept)
    if (ev(r).stream != -1) gpu.push_back(r);
  std::stable_sort(gpu.begin(), gpu.end(), [](const Row& a, const Row& b) { return a.ts < b.ts; });
  ra.gpu_events = static_cast<int64_t>(gpu.size());
  const int64_t origin = gpu.empty() ? 0 : gpu.front().ts;
  auto types_of = [&](const std::vector<Row>& rows) {
    std::vector<HtaKernelType> v(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) v[i] = name_type[ev(rows[i]).name];
    return v;
  };
  const std::vector<HtaKernelType> types = types_of(gpu);
  const RowsBreakdown whole = BreakdownRows(gpu, types, origin);
  ra.temporal = whole.temporal;
  ra.comm_overlap_pct = whole.overlap_pct;
  if (ra.rounded) {
    std::vector<Row> exact = gpu;
    for (Row& r : exact) {
      r.ts = t.events[r.index].ts_ns;
      r.end = r.ts + t.events[r.index].dur_ns;
    }
    const RowsBreakdown x = BreakdownRows(exact, types, origin);
    ra.temporal_exact = x.temporal;
    ra.comm_overlap_exact_pct = x.overlap_pct;
  } else {
    ra.temporal_exact = ra.temporal;
    ra.comm_overlap_exact_pct = ra.comm_overlap_pct;
  }

  // Kernel types (HTA kernel_type_df).
  {
    std::vector<std::pair<int64_t, int64_t>> sets[3];
    for (size_t i = 0; i < gpu.size(); ++i) {
      const int k = types[i] == HtaKernelType::kComputation ? 0 : types[i] == HtaKernelType::kCommunication ? 1
                    : types[i] == HtaKernelType::kMemory        ? 2
                                                                : -1;
      if (k >= 0) sets[k].emplace_back(gpu[i].ts, gpu[i].end);
    }
    for (auto& s : sets) s = MergeNs(std::move(s));
    ra.kernel_types = KernelTypeSweep(sets);
  }

  // Per-name statistics, top kernels, HTA's kernel table, categories.
  {
    std::unordered_map<uint32_t, NameStats> by_name;
    for (size_t i = 0; i < gpu.size(); ++i) {
      if (types[i] == HtaKernelType::kOther) continue;
      const double d = static_cast<double>(gpu[i].end - gpu[i].ts) * kNsToS;
      NameStats& s = by_name[ev(gpu[i]).name];
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
      k.type = name_type[name];
      k.count = s.count;
      k.sum_s = s.sum;
      k.max_s = s.max;
      k.min_s = s.min;
      k.mean_s = s.sum / static_cast<double>(s.count);
      k.stddev_s = SampleStd(s.durs);
      const EventKind kind = k.type == HtaKernelType::kMemory ? (k.name.rfind("Memset", 0) == 0 ? EventKind::kMemset : EventKind::kMemcpy)
                                                              : EventKind::kKernel;
      k.category = KernelCategoryOf(k.name, kind);
      CategoryShare& c = cats[k.category];
      c.category = k.category;
      c.count += k.count;
      c.sum_s += k.sum_s;
      const int ti = k.type == HtaKernelType::kComputation ? 0 : k.type == HtaKernelType::kCommunication ? 1 : 2;
      per_type[ti].push_back(std::move(k));
    }
    const HtaKernelType kTypes[3] = {HtaKernelType::kComputation, HtaKernelType::kCommunication, HtaKernelType::kMemory};
    for (int ti = 0; ti < 3; ++ti) {
      auto rows = HtaKernelRows(kTypes[ti], per_type[ti], opt.top_kernels, opt.kernel_duration_ratio);
      ra.hta_kernel_table.insert(ra.hta_kernel_table.end(), rows.begin(), rows.end());
      auto& v = per_type[ti];
      std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.sum_s != b.sum_s ? a.sum_s > b.sum_s : a.name < b.name; });
      for (size_t i = 0; i < v.size() && static_cast<int>(i) < opt.top_kernels; ++i) ra.top_kernels.push_back(v[i]);
    }
    for (auto& [c, share] : cats) ra.categories.push_back(share);
    std::sort(ra.categories.begin(), ra.categories.end(), [](const auto& a, const auto& b) { return a.sum_s > b.sum_s; });
  }

  // Idle-time breakdown per stream.
  {
    std::vector<int64_t> stream_order;
    std::unordered_map<int64_t, std::vector<Row>> by_stream;
    for (const Row& r : kept) {  // kept is in file order: streams in order of first appearance
      const TraceEvent& e = ev(r);
      if (e.stream == -1) continue;
      if (e.kind != EventKind::kKernel && e.kind != EventKind::kMemcpy && e.kind != EventKind::kMemset) continue;
      auto [it, inserted] = by_stream.try_emplace(e.stream);
      if (inserted) stream_order.push_back(e.stream);
      it->second.push_back(r);
    }
    static const char* kCats[3] = {"host_wait", "kernel_wait", "other"};
    const int64_t delay_ns = static_cast<int64_t>(std::llround(opt.consecutive_kernel_delay_s * 1e9));
    for (int64_t s : stream_order) {
      auto& rows = by_stream[s];
      std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.ts < b.ts; });
      std::vector<double> gaps[3];
      bool present[3] = {false, false, true};
      for (size_t i = 1; i < rows.size(); ++i) {
        const int64_t prev_end = rows[i - 1].end;
        const int64_t gap = rows[i].ts - prev_end;
        const int64_t launched = launch_ts.Get(ev(rows[i]).correlation);
        int c = 2;
        if (launched != CorrelationMap::kAbsent && launched > prev_end) c = 0;
        else if (gap < delay_ns) c = 1;
        gaps[c].push_back(static_cast<double>(gap) * kNsToS);
        present[c] = true;
      }
      double total = 0;
      for (auto& g : gaps)
        for (double x : g) total += x;
      for (int c = 0; c < 3; ++c) {
        if (!present[c]) continue;
        IdleRow row;
        row.stream = s;
        row.category = kCats[c];
        for (double x : gaps[c]) row.idle_s += x;
        row.ratio = total != 0 ? row.idle_s / total : std::numeric_limits<double>::quiet_NaN();
        row.count = static_cast<int64_t>(gaps[c].size());
        if (!gaps[c].empty()) {
          std::vector<double>& g = gaps[c];
          std::sort(g.begin(), g.end());
          const SummaryStats st = Describe(g);
          row.mean_s = st.mean;
          row.stddev_s = st.stddev;
          row.min_s = st.min;
          row.max_s = st.max;
          row.p25_s = SortedQuantile(g, 0.25);
          row.p50_s = st.median;
          row.p75_s = SortedQuantile(g, 0.75);
        }
        ra.idle.push_back(row);
      }
    }
  }

  // CUDA launch statistics.
  {
    // HTA inner-joins CPU and GPU rows on correlation. Correlation ids are unique per launch in
    // real traces; should a file repeat one, each GPU event is paired with the last CPU row of
    // that id (file order), which keeps the join linear instead of quadratic.
    CorrelationMap launch_corr(corr_range), cpu_launch(corr_range);  // cpu_launch: index into kept
    for (const Row& r : kept) {
      const TraceEvent& e = ev(r);
      if (name_launch[e.name] && e.correlation >= 0) launch_corr.Set(e.correlation, 1);
    }
    for (size_t i = 0; i < kept.size(); ++i) {
      const TraceEvent& e = ev(kept[i]);
      if (e.stream == -1 && launch_corr.Get(e.correlation) != CorrelationMap::kAbsent)
        cpu_launch.Set(e.correlation, static_cast<int64_t>(i));
    }
    LaunchStats& ls = ra.launch;
    const double rc = opt.launch_runtime_cutoff_s, dc = opt.launch_delay_cutoff_s;
    for (const Row& g : kept) {
      const TraceEvent& e = ev(g);
      if (e.stream == -1) continue;
      const int64_t ci = cpu_launch.Get(e.correlation);
      if (ci == CorrelationMap::kAbsent) continue;
      {
        const Row& c = kept[static_cast<size_t>(ci)];
        const double cpu = static_cast<double>(c.end - c.ts) * kNsToS, gpu_d = static_cast<double>(g.end - g.ts) * kNsToS;
        const double delay = std::max(0.0, static_cast<double>(g.ts - c.end) * kNsToS);
        ++ls.launches;
        ls.cpu_duration_s += cpu;
        ls.gpu_duration_s += gpu_d;
        ls.launch_delay_s += delay;
        ls.max_launch_delay_s = std::max(ls.max_launch_delay_s, delay);
        // HTA's plot thresholds compare µs values; a tiny epsilon keeps "<= 50 µs" exact in ns.
        if (cpu <= rc + 1e-12 && gpu_d < cpu) ++ls.short_kernels;
        if (cpu > rc + 1e-12) ++ls.runtime_outliers;
        if (delay > dc + 1e-12) ++ls.launch_delay_outliers;
      }
    }
    if (ls.launches) ls.mean_launch_delay_s = ls.launch_delay_s / static_cast<double>(ls.launches);
  }

  // Iterations: CPU ProfilerStep ranges; GPU events belong to the step their launch fell in.
  {
    struct Step {
      int64_t n, ts, end;
    };
    std::vector<Step> steps;
    std::vector<std::pair<int64_t, int64_t>> loader;
    CorrelationMap kept_launch(corr_range);
    for (const Row& r : kept) {
      const TraceEvent& e = ev(r);
      if (gpu_side(e)) continue;
      if (name_step[e.name] >= 0 && e.stream == -1) steps.push_back({name_step[e.name], r.ts, r.end});
      if (name_loader[e.name] && (e.kind == EventKind::kCpuOp || e.kind == EventKind::kUserAnnotation))
        loader.emplace_back(r.ts, r.end);
      if (e.correlation >= 0) kept_launch.Set(e.correlation, r.ts);
    }
    std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.ts < b.ts; });
    loader = MergeNs(std::move(loader));
    std::vector<std::vector<Row>> step_rows(steps.size());
    ra.analysed_event_steps.assign(gpu.size(), -1);
    for (size_t gi = 0; gi < gpu.size(); ++gi) {
      const Row& g = gpu[gi];
      const int64_t lt = kept_launch.Get(ev(g).correlation);
      if (lt == CorrelationMap::kAbsent) continue;
      auto s = std::upper_bound(steps.begin(), steps.end(), lt, [](int64_t x, const Step& st) { return x < st.ts; });
      if (s == steps.begin()) continue;
      --s;
      if (lt < s->end) {
        step_rows[static_cast<size_t>(s - steps.begin())].push_back(g);
        ra.analysed_event_steps[gi] = s->n;
      }
    }
    std::vector<double> step_times;
    double loader_total = 0, step_total = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
      IterationStats it;
      it.step = steps[i].n;
      it.cpu_start_ns = steps[i].ts;
      it.cpu_step_s = static_cast<double>(steps[i].end - steps[i].ts) * kNsToS;
      for (const auto& [a, b] : loader) {
        const int64_t lo = std::max(a, steps[i].ts), hi = std::min(b, steps[i].end);
        if (hi > lo) it.dataloader_s += static_cast<double>(hi - lo) * kNsToS;
      }
      auto& rows = step_rows[i];
      const RowsBreakdown b = BreakdownRows(rows, types_of(rows), origin);
      it.gpu = b.temporal;
      it.comm_overlap_pct = b.overlap_pct;
      if (!rows.empty()) {
        int64_t first = rows[0].ts;
        for (const Row& r : rows) first = std::min(first, r.ts);
        it.gpu_start_ns = first;
      }
      step_times.push_back(it.cpu_step_s);
      loader_total += it.dataloader_s;
      step_total += it.cpu_step_s;
      ra.iterations.push_back(it);
    }
    ra.step_time = Describe(step_times);
    ra.dataloader_share = step_total > 0 ? loader_total / step_total : 0;
  }

  // Collectives: exposed time and bus bandwidth per kind.
  {
    std::vector<uint32_t> idx;
    idx.reserve(gpu.size());
    for (const Row& r : gpu) idx.push_back(r.index);
    ra.collectives = ComputeCollectiveStats(t, idx);
    ra.analysed_events = std::move(idx);
  }
  return ra;
}

}  // namespace

SummaryStats Describe(std::vector<double> v) {
  SummaryStats s;
  s.count = static_cast<int64_t>(v.size());
  if (v.empty()) return s;
  if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  s.min = v.front();
  s.max = v.back();
  s.median = SortedQuantile(v, 0.5);
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.stddev = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0;
  return s;
}

TraceAnalysis AnalyzeTraces(const std::vector<RankTrace>& ranks, const AnalysisOptions& options) {
  TraceAnalysis a;
  a.options = options;
  // HTA filters the last step only when the symbol table of all ranks holds two or more distinct
  // ProfilerStep#N names.
  std::set<int64_t> step_names;
  for (const RankTrace& t : ranks)
    for (const std::string& n : t.names) {
      const int64_t s = ProfilerStepNumber(n);
      if (s >= 0) step_names.insert(s);
    }
  const bool filter = !options.include_last_step && step_names.size() >= 2;

  a.ranks.resize(ranks.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < ranks.size();) {
      RankContext ctx{&ranks[i], filter, &options};
      a.ranks[i] = AnalyzeRank(ctx);
    }
  };
  const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(ranks.size())));
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();

  std::set<int64_t> kept_steps;
  std::map<std::string, double> type_sums;
  for (size_t i = 0; i < ranks.size(); ++i) {
    a.events += static_cast<int64_t>(ranks[i].events.size());
    a.bytes_read += ranks[i].bytes_read;
    for (const auto& it : a.ranks[i].iterations) kept_steps.insert(it.step);
    for (const auto& k : a.ranks[i].kernel_types) type_sums[k.label] += k.sum_s;
  }
  a.profiler_steps.assign(kept_steps.begin(), kept_steps.end());
  for (const auto& [label, sum] : type_sums) a.kernel_types.push_back({label, sum});
  std::stable_sort(a.kernel_types.begin(), a.kernel_types.end(), [](const auto& x, const auto& y) { return x.sum_s > y.sum_s; });

  // The cross-rank view.
  if (a.ranks.size() >= 2) {
    auto spread = [&](const char* metric, auto value) {
      std::vector<std::pair<double, int>> v;
      for (const RankAnalysis& r : a.ranks) {
        const double x = value(r);
        if (std::isfinite(x)) v.emplace_back(x, r.rank);
      }
      if (v.empty()) return;
      std::sort(v.begin(), v.end());
      std::vector<double> xs;
      for (const auto& p : v) xs.push_back(p.first);
      a.cross_rank.push_back({metric, v.front().first, SortedQuantile(xs, 0.5), v.back().first, v.front().second, v.back().second});
    };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    spread("compute_pct", [](const RankAnalysis& r) { return r.temporal.compute_pct(); });
    spread("non_compute_pct", [](const RankAnalysis& r) { return r.temporal.non_compute_pct(); });
    spread("idle_pct", [](const RankAnalysis& r) { return r.temporal.idle_pct(); });
    spread("comm_overlap_pct", [](const RankAnalysis& r) { return r.comm_overlap_pct; });
    spread("step_time_s", [nan](const RankAnalysis& r) { return r.step_time.count ? r.step_time.mean : nan; });
    spread("dataloader_share", [nan](const RankAnalysis& r) { return r.step_time.count ? r.dataloader_share : nan; });
    std::map<int64_t, std::vector<std::pair<double, int>>> by_step;
    for (const RankAnalysis& r : a.ranks)
      for (const IterationStats& it : r.iterations) by_step[it.step].emplace_back(it.cpu_step_s, r.rank);
    for (auto& [step, v] : by_step) {
      if (v.size() < 2) continue;
      std::sort(v.begin(), v.end());
      std::vector<double> xs;
      for (const auto& p : v) xs.push_back(p.first);
      // Within 1 µs the ranks are level (synchronous steps end together): no slowest rank.
      const int slowest = v.back().first - v.front().first > 1e-6 ? v.back().second : -1;
      a.iterations.push_back({step, static_cast<int>(v.size()), v.front().first, SortedQuantile(xs, 0.5), v.back().first, slowest});
    }
  }

  // Stragglers across ranks.
  if (ranks.size() >= 2) {
    std::vector<StragglerInput> in;
    for (size_t i = 0; i < ranks.size(); ++i) {
      StragglerInput s;
      s.rank = ranks[i].rank;
      s.trace = &ranks[i];
      s.events = a.ranks[i].analysed_events;
      s.event_steps = a.ranks[i].analysed_event_steps;
      for (const auto& it : a.ranks[i].iterations) s.step_times_s.push_back(it.cpu_step_s);
      in.push_back(std::move(s));
    }
    a.stragglers = FindStragglers(in);
  }
  return a;
}

}  // namespace paratune
