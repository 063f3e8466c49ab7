#include "analysis/collectives.h"

#include <map>
#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <string>

#include "timeline/breakdown.h"
#include "util/text.h"

namespace paratune {
namespace {

constexpr size_t kKinds = static_cast<size_t>(Collective::kOther) + 1;

// S in bytes as nccl-tests counts it (src/*.cu *GetBw: all_gather count*typesize*nranks = the
// output; reduce_scatter count*typesize*nranks = the input; all_reduce, broadcast, reduce,
// sendrecv count*typesize = the input; alltoall count*nranks*typesize = the input). Empty when
// the args do not carry what it needs.
std::optional<double> MessageBytes(Collective kind, const CollectiveArgs& a) {
  if (kind == Collective::kOther || a.group_size < 1) return std::nullopt;
  const int dtype_bytes = DtypeBytes(a.dtype);
  if (dtype_bytes == 0) return std::nullopt;
  const int64_t nelems = kind == Collective::kAllGather ? a.out_nelems : a.in_nelems;
  if (nelems < 0) return std::nullopt;
  return static_cast<double>(nelems) * dtype_bytes;
}

// The kinds that ran, the largest total time first, each with its exposed time, bandwidths and
// groups (bus_bytes: the sum of S * factor; comm and compute: the kernels' intervals, which
// BreakdownIntervals sorts and merges in place).
std::vector<CollectiveStats> RankedCollectives(std::array<CollectiveStats, kKinds>& stats,
                                               const std::array<double, kKinds>& bus_bytes,
                                               std::array<std::vector<Interval>, kKinds>& comm,
                                               std::array<std::map<int, CollectiveGroupStats>, kKinds>& groups,
                                               std::vector<Interval>& compute) {
  std::vector<CollectiveStats> out;
  for (size_t k = 0; k < kKinds; ++k) {
    CollectiveStats& s = stats[k];
    if (s.count == 0) continue;
    s.kind = static_cast<Collective>(k);
    // Exposed: the union of this kind's kernels minus its overlap with the union of compute
    // kernels (the non-compute time of timeline/breakdown.h).
    s.exposed_s = BreakdownIntervals(compute, comm[k], 0, 0).non_compute_s;
    if (s.sized_time_s > 0) {
      // algbw = S / t, busbw = algbw * factor (nccl-tests doc/PERFORMANCE.md), summed over kernels.
      s.algbw_bytes_per_s = s.bytes / s.sized_time_s;
      s.busbw_bytes_per_s = bus_bytes[k] / s.sized_time_s;
    }
    for (auto& [size, g] : groups[k]) {
      if (g.sized_time_s > 0) g.busbw_bytes_per_s = g.bus_bytes / g.sized_time_s;
      s.groups.push_back(g);
    }
    out.push_back(s);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const CollectiveStats& a, const CollectiveStats& b) { return a.total_s > b.total_s; });
  return out;
}

// A kernel's type per interned name, computed once: HTA's, with the collective kernels outside
// NCCL as communication (IsCommunicationKernel).
class KernelTypes {
 public:
  explicit KernelTypes(const RankTrace& t) : t_(t), of_(t.names.size(), -1) {}
  HtaKernelType operator()(const TraceEvent& e) {
    int8_t& c = of_[e.name];
    if (c < 0)
      c = static_cast<int8_t>(IsCommunicationKernel(t_.names[e.name]) ? HtaKernelType::kCommunication
                                                                      : HtaKernelTypeOf(t_.names[e.name]));
    return static_cast<HtaKernelType>(c);
  }

 private:
  const RankTrace& t_;
  std::vector<int8_t> of_;
};

}  // namespace

int DtypeBytes(std::string_view dtype) {
  // Names from c10/core/ScalarType.h (AT_FORALL_SCALAR_TYPES_WITH_COMPLEX_AND_QINTS), sizes of the
  // C++ types they name.
  const std::string d = AsciiLower(dtype);
  if (d.starts_with("float8") || d.starts_with("float4")) return 1;  // Float8_e4m3fn, Float4_e2m1fn_x2 (packed pair)
  static constexpr struct {
    std::string_view name;
    int bytes;
  } kSizes[] = {
      {"float", 4},    {"float32", 4}, {"double", 8}, {"float64", 8},     {"half", 2},         {"float16", 2},
      {"bfloat16", 2}, {"byte", 1},    {"char", 1},   {"bool", 1},        {"int8", 1},         {"uint8", 1},
      {"short", 2},    {"int16", 2},   {"uint16", 2}, {"int", 4},         {"int32", 4},        {"uint32", 4},
      {"long", 8},     {"int64", 8},   {"uint64", 8}, {"complexhalf", 4}, {"complexfloat", 8}, {"complexdouble", 16},
  };
  for (const auto& s : kSizes)
    if (d == s.name) return s.bytes;
  return 0;
}

std::vector<CollectiveStats> ComputeCollectiveStats(const RankTrace& t, const std::vector<uint32_t>& events) {
  KernelTypes type(t);
  // Times relative to the earliest event, so epoch-based nanoseconds keep their precision as doubles.
  int64_t base_ns = std::numeric_limits<int64_t>::max();
  for (uint32_t i : events)
    if (i < t.events.size()) base_ns = std::min(base_ns, t.events[i].ts_ns);
  auto interval = [&](const TraceEvent& e) {
    const double start_s = static_cast<double>(e.ts_ns - base_ns) * 1e-9;
    return Interval{start_s, start_s + static_cast<double>(e.dur_ns) * 1e-9};
  };

  std::array<CollectiveStats, kKinds> stats{};
  std::array<double, kKinds> bus_bytes{};  // sum of S * factor
  std::array<std::vector<Interval>, kKinds> comm;
  std::array<std::map<int, CollectiveGroupStats>, kKinds> groups;  // by group size
  std::vector<Interval> compute;
  for (uint32_t i : events) {
    if (i >= t.events.size()) continue;
    const TraceEvent& e = t.events[i];
    if (e.kind != EventKind::kKernel || e.name >= t.names.size()) continue;
    const HtaKernelType ht = type(e);
    if (ht == HtaKernelType::kComputation) {
      if (e.stream != -1) compute.push_back(interval(e));
      continue;
    }
    if (ht != HtaKernelType::kCommunication) continue;
    const size_t c = static_cast<size_t>(e.collective);
    const CollectiveArgs* args = e.collective >= 0 && c < t.collectives.size() ? &t.collectives[c] : nullptr;
    const Collective kind = CollectiveKindOf(t.names[e.name], args);
    const size_t k = static_cast<size_t>(kind);
    CollectiveStats& s = stats[k];
    const double dur_s = static_cast<double>(e.dur_ns) * 1e-9;
    ++s.count;
    s.total_s += dur_s;
    comm[k].push_back(interval(e));
    if (args == nullptr) continue;
    if (const std::optional<double> bytes = MessageBytes(kind, *args)) {
      ++s.sized_count;
      s.bytes += *bytes;
      s.sized_time_s += dur_s;
      const double bus = *bytes * BusBandwidthFactor(kind, args->group_size);
      bus_bytes[k] += bus;
      CollectiveGroupStats& g = groups[k][args->group_size];
      g.group_size = args->group_size;
      ++g.sized_count;
      g.bytes += *bytes;
      g.bus_bytes += bus;
      g.sized_time_s += dur_s;
    }
  }

  return RankedCollectives(stats, bus_bytes, comm, groups, compute);
}

}  // namespace paratune
