// RankTrace: one rank's measured GPU run as read from a profiler file (PyTorch/Kineto Chrome-trace
// JSON or an Nsight Systems SQLite export), reduced to the fields the analysis needs. Events are
// compact (names interned), times are integer nanoseconds in the file's own time base, so a trace
// of millions of events costs tens of bytes per event, far below the file's size.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "util/enum_names.h"

namespace paratune {

// Bound on |ts|, |ts + dur| and |baseTimeNanoseconds| (about ±126 years around the trace's time
// base; epoch timestamps are about 1.7e18 ns). Readers drop events outside it as bad numbers, so
// that every difference the analysis takes fits in int64.
constexpr int64_t kMaxTraceTimeNs = 4'000'000'000'000'000'000;

// What an event is, from its Kineto category (current and 2021 layouts) or its Nsight table.
enum class EventKind : uint8_t {
  kCpuOp,              // cpu_op / Operator: a framework operator on a CPU thread
  kUserAnnotation,     // user_annotation: record_function ranges, ProfilerStep#N, NVTX ranges
  kRuntime,            // cuda_runtime / cuda_driver / Runtime: CUDA API calls (launches, syncs)
  kKernel,             // kernel / Kernel: a GPU kernel
  kMemcpy,             // gpu_memcpy / Memcpy
  kMemset,             // gpu_memset / Memset
  kCudaSync,           // cuda_sync: stream/event/context synchronisation shown on a stream
  kGpuUserAnnotation,  // gpu_user_annotation: record_function ranges projected onto a stream
  kPythonFunction,     // python_function
  kOther,              // any other category with a duration
};

// The Kineto category each kind is written under (current layout), for traces paratune writes.
inline constexpr EnumNames<EventKind, 10> kEventKindNames{{{{EventKind::kCpuOp, "cpu_op"},
                                                            {EventKind::kUserAnnotation, "user_annotation"},
                                                            {EventKind::kRuntime, "cuda_runtime"},
                                                            {EventKind::kKernel, "kernel"},
                                                            {EventKind::kMemcpy, "gpu_memcpy"},
                                                            {EventKind::kMemset, "gpu_memset"},
                                                            {EventKind::kCudaSync, "cuda_sync"},
                                                            {EventKind::kGpuUserAnnotation, "gpu_user_annotation"},
                                                            {EventKind::kPythonFunction, "python_function"},
                                                            {EventKind::kOther, "other"}}},
                                                          10};

// Collective arguments PyTorch attaches to NCCL kernels (and to record_param_comms ops):
// "Collective name", "In msg nelems", "Out msg nelems", "Group size", "dtype",
// "Process Group Name" (PyTorch >= 2.1; see torch/csrc/profiler/util.cpp, kCommsName etc.).
struct CollectiveArgs {
  std::string collective;  // "allreduce", "allgather", "reduce_scatter", "all_to_all", ...; may be empty
  int64_t in_nelems = -1;  // -1: absent
  int64_t out_nelems = -1;
  int32_t group_size = -1;
  std::string dtype;          // "Float", "BFloat16", "Half", "Byte", ...; may be empty
  std::string process_group;  // "Process Group Name" (or Nsight communicator); may be empty
};

struct TraceEvent {
  int64_t ts_ns = 0;         // start, ns, in the file's time base (RankTrace::base_time_ns + ts_ns is absolute)
  int64_t dur_ns = 0;        // may be negative only if the file says so (counted in warnings)
  int64_t stream = -1;       // args.stream (Kineto) or streamId (Nsight); -1: none
  int64_t correlation = -1;  // args.correlation / correlationId; -1: none
  uint32_t name = 0;         // index into RankTrace::names
  int32_t collective = -1;   // index into RankTrace::collectives; -1: none
  int32_t tid = 0;           // the thread, as a key (Kineto "tid" folded or hashed to 32 bits; Nsight
                             // globalTid's thread); 0 where the file has none
  EventKind kind = EventKind::kOther;
};

// A profiler memory event (Kineto's "[memory]" instant event, torch.profiler with
// profile_memory=True; torch/csrc/profiler/kineto_shim and kineto's output_json.cpp): one
// allocation (bytes > 0) or free (bytes < 0) on a device and, since PyTorch 1.10, the caching
// allocator's totals on that device after it.
struct MemoryEvent {
  int64_t ts_ns = 0;             // in the file's time base, like TraceEvent::ts_ns
  int64_t bytes = 0;             // "Bytes"
  int64_t total_allocated = -1;  // "Total Allocated"; -1: absent (older PyTorch)
  int64_t total_reserved = -1;   // "Total Reserved"; -1: absent
  int32_t device_type = -1;      // "Device Type" (c10::DeviceType: 0 CPU, 1 CUDA); -1: absent
  int32_t device_id = -1;        // "Device Id"; -1 for the CPU
};

// Counts of input problems the reader survived: the event was skipped (or, for a truncated
// file, the events read so far were kept). Whether they are acceptable is the caller's choice:
// ReadTraceSet (trace_set.h) refuses a truncated file and unusable numbers unless asked to
// analyse a partial trace.
struct TraceWarnings {
  int64_t truncated = 0;          // file ended inside the trace (1 at most)
  int64_t bad_number = 0;         // a numeric field not a number, beyond 64 bits or out of its range
  int64_t missing_field = 0;      // complete event without ts, or without name
  int64_t negative_duration = 0;  // dur < 0: event skipped
  int64_t invalid_utf8 = 0;       // names with invalid UTF-8 (kept, bytes replaced by '?')
  int64_t malformed_event = 0;    // an event that is not a JSON object or cannot be parsed
  // Where the file ends when truncated: "inside \"traceEvents\"", "in the gzip stream", ...
  std::string truncated_at;
  // The first bad_number or negative_duration, one line naming the file, the place (Kineto: line
  // and byte; Nsight: table and row), the field and the value.
  std::string first_bad_value;
  int64_t Total() const {
    return truncated + bad_number + missing_field + negative_duration + invalid_utf8 + malformed_event;
  }
  // Events or values lost to unusable numbers (what a partial analysis skips besides a truncated tail).
  int64_t BadValues() const { return bad_number + negative_duration; }
};

// What a CUDA synchronisation event waits on (Kineto's cuda_sync "Event Sync" and "Stream Wait
// Event" args, pytorch/kineto#808): the stream the awaited cudaEventRecord recorded on and that
// call's correlation id; -1 where absent.
struct SyncWait {
  uint32_t event = 0;               // index into RankTrace::events
  int64_t wait_on_stream = -1;      // "wait_on_stream"
  int64_t record_correlation = -1;  // "wait_on_cuda_event_record_corr_id"
};

struct RankTrace {
  std::string path;                // the file read
  int rank = -1;                   // -1: unknown (the caller must assign one)
  std::string rank_source;         // "distributedInfo", "file name", "--rank", "nsight device"
  int world_size = 0;              // distributedInfo.world_size; 0: unknown
  int64_t base_time_ns = 0;        // baseTimeNanoseconds (0 when timestamps are absolute epoch µs)
  std::string device_name;         // deviceProperties[..].name of the device the kernels ran on, if known
  bool legacy_layout = false;      // 2021 Kineto categories (Operator/Runtime/Kernel)
  bool fractional_ts = false;      // some ts had a fractional part (ns resolution)
  std::vector<std::string> names;  // interned event names
  std::vector<CollectiveArgs> collectives;
  std::vector<TraceEvent> events;   // complete events with a duration, file order
  std::vector<MemoryEvent> memory;  // "[memory]" instant events, file order (Kineto only)
  // The "memory bandwidth (GB/s)" CUPTI reports for a memcpy or memset (Kineto args), as
  // (index into events, GB/s), in event order; events without it are absent.
  std::vector<std::pair<uint32_t, double>> memory_bandwidth_gbps;
  std::vector<SyncWait> sync_waits;  // cuda_sync events that name what they wait on, in event order
  int64_t skipped_events = 0;        // instant, flow, metadata and counter events, "Trace" spans
  int64_t bytes_read = 0;            // uncompressed bytes parsed
  TraceWarnings warnings;

  const std::string& Name(const TraceEvent& e) const { return names[e.name]; }
};

}  // namespace paratune
