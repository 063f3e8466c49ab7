// TraceCriticalPath: the longest chain of dependent work in one window of one rank's trace, and what
// it is made of, as Holistic Trace Analysis's lightweight critical-path analysis defines it
// (hta/analyzers/critical_path_analysis.py CPGraph and CriticalPathAnalysis at f4d0062;
// docs/source/features/lightweight_critical_path_analysis.rst).
//
// The graph: every CPU operator, CUDA runtime call, data-loading event and launched GPU event in
// the window gets a start node and an end node (sorted by time). Edges: an operator's span and
// the steps between nested operators on a thread (the backward thread folded into the forward
// one); consecutive top-level operators (a zero-weight dependency); the CUDA runtime lock that
// serialises cudaLaunchKernel / cudaMemcpyAsync / cudaHostAlloc across threads; per stream, the
// kernel launch delay (launch to start, when the stream had nothing queued) or else the
// kernel-kernel delay (end of the previous kernel to start, under 1.5 ms); and the
// synchronisations: a stream or device sync waits for the last kernel of the stream(s), an event
// sync for the kernel launched before its cudaEventRecord, a cudaStreamWaitEvent makes the next
// kernel on the stream wait for that kernel. The critical path is the longest path (networkx
// dag_longest_path, its tie-breaking reproduced); each edge on it is attributed to an event and
// classed as HTA's bound_by: cpu_bound, data_loading, gpu_compute_bound,
// gpu_communication_bound, gpu_kernel_kernel_overhead, gpu_kernel_launch_overhead.

#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/rank_rows.h"
#include "trace/trace_event.h"
#include "util/enum_names.h"

namespace paratune {

// HTA's BoundType (bound_by), in its order, and the zero-weight edges' empty class.
enum class CriticalBound : uint8_t {
  kKernelKernelOverhead,
  kLaunchOverhead,
  kDataLoading,
  kCpu,
  kGpuCompute,
  kGpuCommunication,
  kDependency,
};
inline constexpr int kCriticalBounds = 7;
inline constexpr EnumNames<CriticalBound, kCriticalBounds> kCriticalBoundNames{
    {{{CriticalBound::kKernelKernelOverhead, "gpu_kernel_kernel_overhead"},
      {CriticalBound::kLaunchOverhead, "gpu_kernel_launch_overhead"},
      {CriticalBound::kDataLoading, "data_loading"},
      {CriticalBound::kCpu, "cpu_bound"},
      {CriticalBound::kGpuCompute, "gpu_compute_bound"},
      {CriticalBound::kGpuCommunication, "gpu_communication_bound"},
      {CriticalBound::kDependency, "dependency"}}},
    kCriticalBounds};

// HTA's CPEdgeType, in its order, with HTA's names.
enum class CriticalEdgeType : uint8_t { kOperatorKernel, kDependency, kLaunchDelay, kKernelKernelDelay, kSync };
inline constexpr int kCriticalEdgeTypes = 5;
inline constexpr EnumNames<CriticalEdgeType, kCriticalEdgeTypes> kCriticalEdgeTypeNames{
    {{{CriticalEdgeType::kOperatorKernel, "critical_path_operator"},
      {CriticalEdgeType::kDependency, "critical_path_dependency"},
      {CriticalEdgeType::kLaunchDelay, "critical_path_kernel_launch_delay"},
      {CriticalEdgeType::kKernelKernelDelay, "critical_path_kernel_kernel_delay"},
      {CriticalEdgeType::kSync, "critical_path_sync_dependency"}}},
    kCriticalEdgeTypes};

struct CriticalPathOptions {
  // Events whose name contains this bound the window (HTA's annotation); empty: the whole trace.
  std::string annotation = "ProfilerStep";
  int first_instance = 0;  // the window spans these instances of the annotation (by start), inclusive
  int last_instance = 0;
  // Events whose name contains one of these are data loading (HTA's data_load_events, there
  // regular expressions; here substrings, so that any input is matched in bounded time).
  std::vector<std::string> data_load_events;
  // HTA's CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE: a zero-weight launch -> kernel edge for every
  // kernel whose launch delay is not counted (keeps causality for what-if replays).
  bool zero_weight_launch_edges = false;
  int top_events = 10;      // events listed by their time on the path
  bool keep_graph = false;  // fill TraceCriticalPath::graph (HTA's show_all_edges overlay; tests)
  bool keep_path = false;   // keep TraceCriticalPath::events and steps past AnalyzeRank (--trace-out's overlay)
};

struct CriticalBoundShare {
  CriticalBound bound = CriticalBound::kCpu;
  double time_s = 0;
  double pct = 0;  // of the path's length
};

// An event on the path with the time of the edges attributed to it.
struct CriticalEvent {
  std::string name;
  CriticalBound bound = CriticalBound::kCpu;
  int64_t stream = -1;
  int64_t edges = 0;
  double time_s = 0;
};

struct CriticalEdgeCount {
  CriticalEdgeType type = CriticalEdgeType::kOperatorKernel;
  int64_t count = 0;
};

// Time of this rank's critical path spent in collectives waiting for another rank to arrive.
struct CriticalWait {
  int rank = 0;             // the rank that arrived last
  int64_t collectives = 0;  // collectives on the path it was last at
  double wait_s = 0;        // sum of (this rank's kernel - the shortest kernel of the collective)
};

struct TraceCriticalPath {
  std::string annotation;  // as asked
  int first_instance = 0, last_instance = 0;
  double window_start_s = 0, window_end_s = 0;  // in the trace's time base
  int64_t graph_nodes = 0, graph_edges = 0;     // nodes with an edge (networkx's), edges
  int64_t path_nodes = 0;                       // HTA's len(critical_path_nodes)
  int64_t path_events = 0;                      // distinct events on the path
  std::vector<CriticalEdgeCount> path_edges;    // per CriticalEdgeType, in its order
  int64_t negative_edges = 0;                   // edges of negative weight counted as 0 (HTA's non-strict check)
  double length_s = 0;                          // sum of the path's edge weights
  std::vector<CriticalBoundShare> bounds;       // HTA's summary(), in CriticalBound order, zero rows dropped
  std::vector<CriticalEvent> top_events;        // by time on the path, descending
  // Beyond HTA, the cross-rank collective edge (critical_path_across.h): of the communication
  // kernels on the path, the time spent waiting for the last rank to arrive, and who that was.
  double collective_wait_s = 0;
  std::vector<CriticalWait> waited_for;  // by wait, descending
  // Indices into RankTrace::events of the path's events, ascending. AnalyzeRank frees it and
  // `steps` once used, unless keep_graph or keep_path.
  std::vector<uint32_t> events;
  // The path's edges as (from event, to event, type, weight s), in path order: for overlays.
  struct Step {
    uint32_t from = 0, to = 0;
    CriticalEdgeType type = CriticalEdgeType::kOperatorKernel;
    double weight_s = 0;
    int64_t attributed = -1;                // the event an operator / kernel-kernel edge's time belongs to; -1: none
    bool from_end = false, to_end = false;  // the edge leaves / reaches its event's end node (else its start)
  };
  std::vector<Step> steps;
  std::vector<Step> graph;  // every edge of the graph, in insertion order, with keep_graph
};

// The critical path of `rows`' rank in the window `o` names. nullopt with `why` set when the
// window is absent (no event names the annotation, or fewer instances) or the graph is not a DAG
// (HTA's validation: a cycle, or a synchronisation between two kernels of one stream).
std::optional<TraceCriticalPath> TraceCriticalPathOf(const RankRows& rows, const CriticalPathOptions& o,
                                                     std::string* why);

}  // namespace paratune
