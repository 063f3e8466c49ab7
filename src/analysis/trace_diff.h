// TraceDiff: what changed between two runs, or between two iteration ranges of one run, name by
// name: how often each CPU operator, runtime call, annotation and GPU kernel ran in each and its
// total time, and whether it was added, deleted, ran more often, less often or as often. The
// definitions are Holistic Trace Analysis's TraceDiff (github.com/facebookresearch/
// HolisticTraceAnalysis hta/trace_diff.py, compare_traces and ops_diff, at f4d0062; docs/analysis.md):
//  - an event belongs to ProfilerStep#N when it is on the CPU (stream -1, or a cpu_op on stream 0)
//    and N's span holds its start (s.ts <= e.ts < s.ts + s.dur; the last such step in file order
//    wins), or when it is on the GPU and its CPU launch (same correlation id) belongs to N;
//  - rows are grouped by name (or HTA's short name) over the chosen ranks and iterations, sorted
//    by name; times are HTA's (whole µs when the trace has fractional timestamps).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trace/trace_event.h"
#include "util/enum_names.h"

namespace paratune {

// Which events are compared: HTA's DeviceType (CPU: stream -1; GPU: any other stream).
enum class DiffDevice : uint8_t { kAll, kCpu, kGpu };
inline constexpr EnumNames<DiffDevice, 3> kDiffDeviceNames{
    {{{DiffDevice::kAll, "all"}, {DiffDevice::kCpu, "cpu"}, {DiffDevice::kGpu, "gpu"}}}, 3};

// HTA's ops_diff classes: added (none in control), deleted (none in test), increased / decreased
// (in both, more / fewer in test), unchanged (in both, as many).
enum class OpChange : uint8_t { kAdded, kDeleted, kIncreased, kDecreased, kUnchanged };
inline constexpr EnumNames<OpChange, 5> kOpChangeNames{{{{OpChange::kAdded, "added"},
                                                         {OpChange::kDeleted, "deleted"},
                                                         {OpChange::kIncreased, "increased"},
                                                         {OpChange::kDecreased, "decreased"},
                                                         {OpChange::kUnchanged, "unchanged"}}},
                                                       5};

// The ranks and ProfilerStep numbers of one side; empty: the lowest rank / step of its set (HTA's
// default).
struct DiffSelection {
  std::vector<int> ranks;
  std::vector<int64_t> iterations;
};

struct TraceDiffOptions {
  DiffSelection control, test;
  DiffDevice device = DiffDevice::kAll;
  bool short_names = false;  // HTA's use_short_name (ShortOpName)
  bool exact_ns = false;     // ns times instead of HTA's whole-µs rounding
};

struct OpDiffRow {
  std::string name;
  int64_t control_count = 0, test_count = 0;
  double control_total_s = 0, test_total_s = 0;
  OpChange change = OpChange::kUnchanged;
};

// One side as compared: the selection resolved, and its events and ProfilerStep spans.
struct DiffSide {
  DiffSelection selected;
  int64_t events = 0;      // events counted
  double step_time_s = 0;  // sum of the selected ProfilerStep spans on the selected ranks
};

struct TraceDiff {
  DiffSide control, test;
  DiffDevice device = DiffDevice::kAll;
  bool short_names = false;
  std::vector<OpDiffRow> rows;  // by name, byte order (pandas' sorted index)
  int64_t CountOf(OpChange change) const;
};

// Throws InputError for a rank or iteration not in its set, or a set without ProfilerStep spans.
TraceDiff DiffTraces(const std::vector<RankTrace>& control, const std::vector<RankTrace>& test,
                     const TraceDiffOptions& options);

// A diff's selection as `analyze --diff-steps` / `--diff-ranks` and the Python keywords give it:
// "C:T", each side a comma list of numbers and ranges ("1009:1010", "3-5:8,9", ":2" keeps the
// control's default); one side alone ("1010") is both. Numbers from 0; a range of at most 100,000.
// Throws InputError naming `flag` and what is wrong.
std::pair<std::vector<int64_t>, std::vector<int64_t>> ParseDiffPair(std::string_view spec, const std::string& flag);

// HTA's shorten_name (hta/utils/utils.py): memory kernels and names without '<' or '(' unchanged;
// otherwise "->" removed, every <...> and (...) with its contents removed, and the last
// space-separated word kept ("void at::native::foo<4>(int)" -> "at::native::foo").
std::string ShortOpName(std::string_view name);

}  // namespace paratune
