// HTA's CPGraph, step by step (hta/analyzers/critical_path_analysis.py at f4d0062; the function
// each part reproduces is named above it). HTA's dataframe index is an event's position in the
// file; here it is the event's index in RankTrace::events, which keeps the same order.
#include "analysis/critical_path.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "analysis/critical_path_graph.h"
#include "analysis/call_stack.h"
#include "analysis/queue_length.h"

namespace paratune {
namespace {

constexpr int64_t kNone = -1;     // HTA index_correlation -1: no correlation
constexpr int64_t kUnfound = -2;  // HTA index_correlation 0: correlated, the other side absent
constexpr int64_t kKernelKernelDelayThresholdNs = 1'500'000;  // KERNEL_KERNEL_DELAY_THRESHOLD_US

bool HtaAtLeastZero(int64_t ic) { return ic >= 0 || ic == kUnfound; }  // HTA "index_correlation >= 0"

// What CPGraph reads of each event (HTA's trace dataframe after its last-step filter).
// The names the sync handling looks for, classed once per name (Frame::sync).
enum class SyncName : uint8_t {
  kNone,
  kEventRecord,      // cudaEventRecord
  kStreamWaitCall,   // cudaStreamWaitEvent (the CPU call)
  kStreamWaitEvent,  // "Stream Wait Event" (its cuda_sync event on the GPU)
  kEventSync,        // "Event Sync"
  kContextSync,      // "Context Sync"
  kStreamSync,       // "Stream Sync"
};

SyncName SyncNameOf(std::string_view n) {
  static constexpr std::array<std::pair<std::string_view, SyncName>, 6> kNames = {
      {{"cudaEventRecord", SyncName::kEventRecord},
       {"cudaStreamWaitEvent", SyncName::kStreamWaitCall},
       {"Stream Wait Event", SyncName::kStreamWaitEvent},
       {"Event Sync", SyncName::kEventSync},
       {"Context Sync", SyncName::kContextSync},
       {"Stream Sync", SyncName::kStreamSync}}};
  for (const auto& [name, kind] : kNames)
    if (n == name) return kind;
  return SyncName::kNone;
}

struct Frame {
  const RankRows* rows = nullptr;
  const RankTrace* t = nullptr;
  std::vector<int64_t> ts, end;       // per event, HTA's (possibly rounded) times
  std::vector<uint8_t> full;          // kept by HTA's last-step filter (CPGraph's t_full)
  std::vector<int64_t> ic;            // index_correlation (trace.py transform_correlation_to_index)
  std::vector<uint8_t> blocking;      // per name: BLOCKING_SYNC_CALLS
  std::vector<uint8_t> runtime_lock;  // per name: CUDA_RUNTIME_EVENTS
  std::vector<uint8_t> launch;        // per name: get_runtime_launch_events_mask
  std::vector<uint8_t> loading;       // per name: data_load_events
  std::vector<SyncName> sync;         // per name
  const TraceEvent& E(size_t i) const { return t->events[i]; }
  SyncName Sync(size_t i) const { return sync[t->events[i].name]; }
  std::string_view Name(size_t i) const { return t->names[t->events[i].name]; }
  bool GpuSide(size_t i) const { return rows->GpuSide(E(i)); }
};

// transform_correlation_to_index: a CPU-side event links to the last GPU-side event with its
// correlation and back (pandas' merge then .loc assignment: the last match wins).
void LinkCorrelations(Frame& f) {
  const size_t n = f.t->events.size();
  CorrelationMap cpu(f.rows->corr_range), gpu(f.rows->corr_range);
  for (size_t i = 0; i < n; ++i)
    if (f.E(i).correlation >= 0) (f.GpuSide(i) ? gpu : cpu).Set(f.E(i).correlation, static_cast<int64_t>(i));
  f.ic.assign(n, kNone);
  for (size_t i = 0; i < n; ++i) {
    if (f.E(i).correlation < 0) continue;
    const int64_t other = (f.GpuSide(i) ? cpu : gpu).Get(f.E(i).correlation);
    f.ic[i] = other == CorrelationMap::kAbsent ? kUnfound : other;
  }
}

template <size_t N>
std::vector<uint8_t> NamesIn(const std::vector<std::string>& names, const std::array<std::string_view, N>& set) {
  std::vector<uint8_t> v(names.size());
  for (size_t i = 0; i < names.size(); ++i) v[i] = std::find(set.begin(), set.end(), names[i]) != set.end();
  return v;
}

Frame MakeFrame(const RankRows& rows, const CriticalPathOptions& o) {
  Frame f;
  f.rows = &rows;
  f.t = rows.trace;
  const size_t n = f.t->events.size();
  f.ts.assign(n, 0);
  f.end.assign(n, 0);
  f.full.assign(n, 0);
  for (const Row& r : rows.kept) f.ts[r.index] = r.ts, f.end[r.index] = r.end, f.full[r.index] = 1;
  LinkCorrelations(f);
  const auto& names = f.t->names;
  f.blocking =
      NamesIn(names, std::array<std::string_view, 6>{"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery",
                                                     "cudaEventSynchronize", "cudaMemcpy", "cudaMemcpyAsync"});
  f.runtime_lock =
      NamesIn(names, std::array<std::string_view, 3>{"cudaHostAlloc", "cudaLaunchKernel", "cudaMemcpyAsync"});
  f.launch.assign(names.size(), 0);
  f.loading.assign(names.size(), 0);
  f.sync.assign(names.size(), SyncName::kNone);
  for (size_t i = 0; i < names.size(); ++i) {
    f.launch[i] = IsHtaLaunchCall(names[i]);
    f.sync[i] = SyncNameOf(names[i]);
    for (const std::string& p : o.data_load_events)
      if (!p.empty() && names[i].find(p) != std::string::npos) f.loading[i] = 1;
  }
  return f;
}

// CriticalPathAnalysis.critical_path_analysis: the window [start, end] of the annotation's
// instances; false when there are not enough instances.
bool Window(const Frame& f, const CriticalPathOptions& o, int64_t* start, int64_t* end, std::string* why) {
  *start = std::numeric_limits<int64_t>::max();
  *end = std::numeric_limits<int64_t>::min();
  int instance = 0;
  for (size_t i = 0; i < f.full.size(); ++i) {
    if (!f.full[i]) continue;
    if (!o.annotation.empty()) {
      if (f.Name(i).find(o.annotation) == std::string_view::npos) continue;
      const int k = instance++;
      if (k < o.first_instance || k > o.last_instance) continue;
    }
    *start = std::min(*start, f.ts[i]);
    *end = std::max(*end, f.end[i]);
  }
  if (*start <= *end) return true;
  *why = o.annotation.empty() ? "the trace has no events"
         : instance == 0      ? "no event's name contains '" + o.annotation + "'"
                              : "'" + o.annotation + "' has " + std::to_string(instance) + " instances, instance " +
                               std::to_string(o.first_instance) + " asked";
  return false;
}

// The clipped events: CPU events (stream -1) starting in the window with a positive duration,
// GPU events whose launch is one of them, and every "Stream Wait Event"; in index order.
std::vector<uint32_t> Clip(const Frame& f, int64_t start, int64_t end) {
  const size_t n = f.full.size();
  std::vector<uint8_t> in(n, 0);
  auto in_window = [&](size_t i) { return f.ts[i] >= start && f.ts[i] <= end && f.end[i] - f.ts[i] > 0; };
  for (size_t i = 0; i < n; ++i) {
    if (!f.full[i]) continue;
    if (f.E(i).stream == -1) {
      if (!in_window(i)) continue;
      in[i] = 1;
      const int64_t g = f.ic[i];
      if (g >= 0 && f.full[static_cast<size_t>(g)] && f.E(static_cast<size_t>(g)).stream != -1)
        in[static_cast<size_t>(g)] = 1;
    } else if (f.Sync(i) == SyncName::kStreamWaitEvent) {
      in[i] = 1;
    }
  }
  std::vector<uint32_t> clip;
  for (size_t i = 0; i < n; ++i)
    if (in[i]) clip.push_back(static_cast<uint32_t>(i));
  return clip;
}

constexpr int64_t kNoValue = std::numeric_limits<int64_t>::min();

// TraceCounters._get_queue_length_time_series_for_rank on the whole (filtered) trace: per
// stream, +1 at each launch call with a GPU event, -1 at that event's start, by time (launches
// first at a tie); the value after each event's own step, kNoValue for others.
std::vector<int64_t> QueueValues(const Frame& f) {
  std::unordered_map<int64_t, std::vector<uint32_t>> gpu_of;  // correlation -> GPU rows (stream != -1)
  for (size_t i = 0; i < f.full.size(); ++i)
    if (f.full[i] && f.E(i).stream != -1 && f.E(i).correlation >= 0)
      gpu_of[f.E(i).correlation].push_back(static_cast<uint32_t>(i));
  std::vector<QueuePoint> points;
  for (size_t i = 0; i < f.full.size(); ++i) {
    if (!f.full[i] || !f.launch[f.E(i).name]) continue;
    const auto it = gpu_of.find(f.E(i).correlation);
    if (it == gpu_of.end()) continue;
    for (uint32_t g : it->second) points.push_back({f.ts[i], f.E(g).stream, static_cast<uint32_t>(i), +1});
  }
  std::unordered_map<int64_t, uint8_t> launched;
  for (const QueuePoint& p : points) launched[f.E(p.id).correlation] = 1;
  for (size_t i = 0; i < f.full.size(); ++i)
    if (f.full[i] && f.E(i).stream != -1 && f.E(i).correlation >= 0 && launched.count(f.E(i).correlation))
      points.push_back({f.ts[i], f.E(i).stream, static_cast<uint32_t>(i), -1});
  // Every launch precedes every start in `points`, so the series' order is HTA's (a stable sort by time).
  const std::vector<int64_t> series = QueueLengthSeries(points);
  std::vector<int64_t> value(f.full.size(), kNoValue);
  for (size_t k = 0; k < points.size(); ++k) value[points[k].id] = series[k];
  return value;
}

// CPGraph._get_cuda_runtime_calls_df: the launch calls whose GPU event is in the trace, by time;
// their position is HTA's launch_id.
struct Launch {
  uint32_t ev;
  int64_t ts, stream, tid;
};
std::vector<Launch> RuntimeLaunches(const Frame& f) {
  std::vector<Launch> v;
  for (size_t i = 0; i < f.full.size(); ++i) {
    if (!f.full[i] || !f.launch[f.E(i).name] || f.ic[i] < 0) continue;
    const auto g = static_cast<size_t>(f.ic[i]);
    if (!f.full[g] || f.E(g).stream == -1 || f.ic[g] < 0) continue;
    v.push_back({static_cast<uint32_t>(i), f.ts[i], f.E(g).stream, f.E(i).tid});
  }
  std::stable_sort(v.begin(), v.end(), [](const Launch& a, const Launch& b) { return a.ts < b.ts; });
  return v;
}

// _get_cuda_event_record_df: for each cudaEventRecord that a sync waits on, the last launch on
// the recorded stream before it (its event index), by the record's correlation.
std::unordered_map<int64_t, uint32_t> RecordPreviousLaunch(const Frame& f, const std::vector<Launch>& launches) {
  std::unordered_map<int64_t, int64_t> stream_of;  // record correlation -> stream
  for (const SyncWait& w : f.t->sync_waits)
    if (w.wait_on_stream >= 0 && f.full[w.event]) stream_of.emplace(w.record_correlation, w.wait_on_stream);
  std::vector<uint32_t> records;
  for (size_t i = 0; i < f.full.size(); ++i)
    if (f.full[i] && f.Sync(i) == SyncName::kEventRecord && stream_of.count(f.E(i).correlation))
      records.push_back(static_cast<uint32_t>(i));
  std::stable_sort(records.begin(), records.end(), [&](uint32_t a, uint32_t b) { return f.ts[a] < f.ts[b]; });
  std::unordered_map<int64_t, std::vector<const Launch*>> on_stream;  // by time, as `launches`
  for (const Launch& l : launches) on_stream[l.stream].push_back(&l);
  std::unordered_map<int64_t, uint32_t> prev;
  for (uint32_t r : records) {
    const auto& on = on_stream[stream_of[f.E(r).correlation]];
    // the last launch at or before the record (a launch at the same time comes first)
    const auto it =
        std::upper_bound(on.begin(), on.end(), f.ts[r], [](int64_t t, const Launch* l) { return t < l->ts; });
    if (it != on.begin()) prev[f.E(r).correlation] = (*std::prev(it))->ev;
  }
  return prev;
}

// _get_cuda_stream_wait_event_df: for each cudaStreamWaitEvent, the next launch on its thread
// and on the stream that waits (its event index), by the call's event index.
std::unordered_map<uint32_t, uint32_t> WaitNextLaunch(const Frame& f, const std::vector<Launch>& launches) {
  std::unordered_map<uint32_t, uint32_t> next;
  if (std::find(f.sync.begin(), f.sync.end(), SyncName::kStreamWaitEvent) == f.sync.end()) return next;
  std::map<std::pair<int64_t, int64_t>, std::vector<const Launch*>> on_thread;  // (tid, stream), by time
  for (const Launch& l : launches) on_thread[{l.tid, l.stream}].push_back(&l);
  for (size_t i = 0; i < f.full.size(); ++i) {
    if (!f.full[i] || f.Sync(i) != SyncName::kStreamWaitCall || f.ic[i] < 0) continue;
    const auto g = static_cast<size_t>(f.ic[i]);
    if (!f.full[g] || f.E(g).stream == -1 || f.ic[g] < 0) continue;
    const auto it = on_thread.find({f.E(i).tid, f.E(g).stream});
    if (it == on_thread.end()) continue;
    const auto& on = it->second;  // the first launch after the call
    const auto l =
        std::upper_bound(on.begin(), on.end(), f.ts[i], [](int64_t t, const Launch* x) { return t < x->ts; });
    if (l != on.end()) next[static_cast<uint32_t>(i)] = (*l)->ev;
  }
  return next;
}

// A point in time of the graph (CPNode).
struct Node {
  int64_t ts = 0;
  uint32_t ev = 0;
  bool start = true;
};

class Builder {
 public:
  Builder(const Frame& f, const CriticalPathOptions& o) : f_(f), o_(o) {}
  std::optional<TraceCriticalPath> Run(std::string* why);

 private:
  void CreateNodes(const std::vector<uint32_t>& clip);
  int32_t AddEdge(int32_t from, int32_t to, CriticalEdgeType type, bool zero_weight = false);
  void Attribute(int32_t edge, int64_t src_parent);
  bool SharesRuntimeLock(int32_t a, int32_t b) const;
  void RuntimeLockEdges();
  void CallStackEdges(const std::vector<uint32_t>& clip);
  void ThreadEdges(const std::vector<StackEvent>& thread);
  void KernelEdges(const std::vector<uint32_t>& clip);
  struct KernelState;
  void SyncEdges(KernelState& k, uint32_t ev);
  void KernelEdge(KernelState& k, uint32_t ev);
  int32_t StartOf(int64_t ev) const { return ev >= 0 && ev < ssize(start_) ? start_[static_cast<size_t>(ev)] : -1; }
  int32_t EndOf(int64_t ev) const { return ev >= 0 && ev < ssize(end_) ? end_[static_cast<size_t>(ev)] : -1; }
  template <typename V>
  static int64_t ssize(const V& v) {
    return static_cast<int64_t>(v.size());
  }
  bool Valid(std::string* why) const;
  TraceCriticalPath Summarize(const std::vector<int32_t>& path) const;
  CriticalBound BoundOf(const CriticalPathGraph::Edge& e) const;

  const Frame& f_;
  const CriticalPathOptions& o_;
  std::vector<Node> nodes_;
  std::vector<int32_t> start_, end_;  // per event: its nodes, -1 none
  std::optional<CriticalPathGraph> g_;
};

// _create_event_nodes: a start and an end node for each CPU operator, CUDA runtime/driver call,
// data-loading event and launched GPU event, sorted by (time, event), starts first at a tie.
void Builder::CreateNodes(const std::vector<uint32_t>& clip) {
  std::vector<Node> starts, ends;
  for (uint32_t i : clip) {
    const TraceEvent& e = f_.E(i);
    const bool op = e.kind == EventKind::kCpuOp || e.kind == EventKind::kRuntime;
    if (!(op || f_.loading[e.name] || (e.stream != -1 && HtaAtLeastZero(f_.ic[i])))) continue;
    starts.push_back({f_.ts[i], i, true});
    ends.push_back({f_.end[i], i, false});
  }
  nodes_ = std::move(starts);
  nodes_.insert(nodes_.end(), ends.begin(), ends.end());
  std::stable_sort(nodes_.begin(), nodes_.end(),
                   [](const Node& a, const Node& b) { return a.ts != b.ts ? a.ts < b.ts : a.ev < b.ev; });
  start_.assign(f_.full.size(), -1);
  end_.assign(f_.full.size(), -1);
  for (size_t k = 0; k < nodes_.size(); ++k) (nodes_[k].start ? start_ : end_)[nodes_[k].ev] = static_cast<int32_t>(k);
  g_.emplace(static_cast<int32_t>(nodes_.size()));
}

// _add_edge_helper: dependency and sync edges weigh 0, the others the time between the nodes.
int32_t Builder::AddEdge(int32_t from, int32_t to, CriticalEdgeType type, bool zero_weight) {
  const bool zero = zero_weight || type == CriticalEdgeType::kDependency || type == CriticalEdgeType::kSync;
  const int64_t w = zero ? 0 : nodes_[static_cast<size_t>(to)].ts - nodes_[static_cast<size_t>(from)].ts;
  return g_->AddEdge(from, to, static_cast<uint8_t>(type), w);
}

// _attribute_edge: an operator or kernel span goes to the event it lies in.
void Builder::Attribute(int32_t edge, int64_t src_parent) {
  CriticalPathGraph::Edge& e = g_->At(edge);
  const auto type = static_cast<CriticalEdgeType>(e.type);
  if (type != CriticalEdgeType::kOperatorKernel && type != CriticalEdgeType::kKernelKernelDelay) return;
  const Node& src = nodes_[static_cast<size_t>(e.from)];
  const Node& dst = nodes_[static_cast<size_t>(e.to)];
  if (type == CriticalEdgeType::kKernelKernelDelay || src.start)
    e.attributed = src.ev;
  else if (!dst.start)
    e.attributed = dst.ev;
  else
    e.attributed = src_parent;
}

bool Builder::SharesRuntimeLock(int32_t a, int32_t b) const {
  const Node& x = nodes_[static_cast<size_t>(a)];
  const Node& y = nodes_[static_cast<size_t>(b)];
  return f_.runtime_lock[f_.E(x.ev).name] && f_.runtime_lock[f_.E(y.ev).name] && (x.start || !y.start);
}

// _construct_graph_from_cuda_runtime_events: calls that take the CUDA runtime lock are ordered
// by their ends; each start leads to the next end.
void Builder::RuntimeLockEdges() {
  std::vector<int32_t> open;
  int32_t last = -1;
  for (size_t k = 0; k < nodes_.size(); ++k) {
    const Node& n = nodes_[k];
    if (!f_.runtime_lock[f_.E(n.ev).name]) continue;
    const auto id = static_cast<int32_t>(k);
    if (n.start) {
      open.push_back(id);
    } else {
      while (!open.empty()) {
        const int32_t prev = open.back();
        open.pop_back();
        if (nodes_[static_cast<size_t>(prev)].ev == n.ev)
          Attribute(AddEdge(prev, id, CriticalEdgeType::kOperatorKernel), n.ev);
        else
          AddEdge(prev, id, CriticalEdgeType::kDependency);
      }
      if (last >= 0 && !nodes_[static_cast<size_t>(last)].start) AddEdge(last, id, CriticalEdgeType::kDependency);
    }
    last = id;
  }
}

// _get_tid_for_event: the one thread whose CPU operators or annotations have `part` in their
// name; -1 when none or several.
int64_t ThreadNaming(const Frame& f, const std::vector<uint32_t>& clip, std::string_view part) {
  int64_t tid = -1;
  for (uint32_t i : clip) {
    const TraceEvent& e = f.E(i);
    if (e.kind != EventKind::kCpuOp && e.kind != EventKind::kUserAnnotation) continue;
    if (f.Name(i).find(part) == std::string_view::npos) continue;
    if (tid >= 0 && tid != e.tid) return -1;
    tid = e.tid;
  }
  return tid;
}

// _construct_graph_from_call_stacks: each CPU thread's call stack (the backward thread merged
// into the forward one), threads in key order as pandas' groupby.
void Builder::CallStackEdges(const std::vector<uint32_t>& clip) {
  const int64_t fwd = ThreadNaming(f_, clip, "forward");
  const int64_t bwd = ThreadNaming(f_, clip, "autograd");
  std::map<int64_t, std::vector<StackEvent>> threads;
  for (uint32_t i : clip) {
    const TraceEvent& e = f_.E(i);
    if (e.stream != -1) continue;
    const int64_t tid = (fwd >= 0 && bwd >= 0 && e.tid == bwd) ? fwd : e.tid;
    threads[tid].push_back({i, f_.ts[i], f_.end[i] - f_.ts[i]});
  }
  for (const auto& [tid, events] : threads) ThreadEdges(events);
}

// _construct_graph_from_call_stack: along the depth-first walk, each node event's start and end
// follow the previous one's; between top-level operators the step is a dependency, inside an
// operator it is the operator's time; a blocking sync call's own time weighs 0 (it is waiting).
void Builder::ThreadEdges(const std::vector<StackEvent>& thread) {
  int32_t last = -1;
  int depth = 0;
  int64_t last_parent = -1;
  for (const StackStep& s : WalkCallStack(thread)) {
    const int32_t start = StartOf(s.index), end = EndOf(s.index);
    if (start < 0 || end < 0) continue;
    const int32_t here = s.enter ? start : end;
    if (last >= 0 && !SharesRuntimeLock(last, here)) {
      CriticalEdgeType type = CriticalEdgeType::kOperatorKernel;
      if (s.enter && depth == 0) type = CriticalEdgeType::kDependency;
      const bool zero = !s.enter && f_.blocking[f_.E(s.index).name];
      Attribute(AddEdge(last, here, type, zero), last_parent);
    }
    last = here;
    last_parent = s.parent;
    depth += s.enter ? 1 : -1;
  }
}

// _construct_graph_from_kernels' state: the last node per stream (in first-seen order, as a
// Python dict), the pending GPU-GPU waits, and the lookups HTA joins in.
struct Builder::KernelState {
  std::vector<std::pair<int64_t, int32_t>> last;      // stream -> end node of its last kernel
  std::unordered_map<uint32_t, int64_t> kernel_sync;  // kernel -> kernel it waits for (-1: done)
  std::vector<int64_t> queue;                         // QueueValues
  std::unordered_map<int64_t, uint32_t> record_prev;  // RecordPreviousLaunch
  std::unordered_map<uint32_t, uint32_t> wait_next;   // WaitNextLaunch
  std::unordered_map<uint32_t, int64_t> record_of;    // sync event -> awaited record's correlation
  int32_t* Last(int64_t stream) {
    for (auto& [s, n] : last)
      if (s == stream) return &n;
    return nullptr;
  }
};

// handle_cuda_sync: an event sync waits on the kernel launched before its cudaEventRecord; a
// stream wait makes the next kernel on its stream wait for that kernel; a stream (device) sync
// waits for the last kernel of its stream (of every stream).
void Builder::SyncEdges(KernelState& k, uint32_t ev) {
  const SyncName name = f_.Sync(ev);
  const int64_t call = f_.ic[ev];  // the CPU call that synchronises
  auto sync_to_call = [&](int32_t gpu_node) {
    if (gpu_node >= 0 && EndOf(call) >= 0 && gpu_node != EndOf(call))
      AddEdge(gpu_node, EndOf(call), CriticalEdgeType::kSync);
  };
  if (name == SyncName::kStreamWaitEvent || name == SyncName::kEventSync) {
    const auto rec = k.record_of.find(ev);
    if (rec == k.record_of.end()) return;
    const auto prev = k.record_prev.find(rec->second);
    if (prev == k.record_prev.end()) return;
    const int64_t src_kernel = f_.ic[prev->second];
    if (name == SyncName::kEventSync) return sync_to_call(EndOf(src_kernel));
    if (call < 0) return;
    const auto next = k.wait_next.find(static_cast<uint32_t>(call));
    if (next == k.wait_next.end()) return;
    const int64_t dest_kernel = f_.ic[next->second];
    if (dest_kernel >= 0) k.kernel_sync[static_cast<uint32_t>(dest_kernel)] = src_kernel;
    return;
  }
  if (name == SyncName::kContextSync) {
    for (const auto& [stream, node] : k.last) sync_to_call(node);
  } else if (name == SyncName::kStreamSync) {
    if (const int32_t* n = k.Last(f_.E(ev).stream)) sync_to_call(*n);
  }
}

// The loop body for a kernel, memcpy or memset: its span; a pending wait on another stream's
// kernel; then the launch delay when the stream was idle at the launch, else the gap after the
// stream's previous kernel when under 1.5 ms.
void Builder::KernelEdge(KernelState& k, uint32_t ev) {
  const int32_t start = StartOf(ev), end = EndOf(ev);
  if (start < 0 || end < 0) return;
  Attribute(AddEdge(start, end, CriticalEdgeType::kOperatorKernel), -1);
  const int64_t stream = f_.E(ev).stream;
  int32_t sync_end = -1;
  bool waits = false;
  if (const auto it = k.kernel_sync.find(ev); it != k.kernel_sync.end() && it->second != -1) {
    sync_end = EndOf(it->second);
    waits = sync_end >= 0;
    if (waits) AddEdge(sync_end, start, CriticalEdgeType::kSync);
    it->second = -1;
  }
  const int64_t runtime = f_.ic[ev];
  const int64_t runtime_ts = runtime >= 0 ? f_.ts[static_cast<size_t>(runtime)] : kNoValue;
  const int32_t* last = k.Last(stream);
  const int64_t last_ts = last ? nodes_[static_cast<size_t>(*last)].ts : kNoValue;
  const int64_t sync_ts = waits ? nodes_[static_cast<size_t>(sync_end)].ts : kNoValue;
  const int64_t q_runtime = runtime >= 0 ? k.queue[static_cast<size_t>(runtime)] : kNoValue;
  bool launch_added = false;
  if (q_runtime == 1 && k.queue[ev] == 0 && (!last || last_ts < runtime_ts) && (!waits || sync_ts < runtime_ts) &&
      StartOf(runtime) >= 0) {
    AddEdge(StartOf(runtime), start, CriticalEdgeType::kLaunchDelay);
    launch_added = true;
  } else if (last && nodes_[static_cast<size_t>(start)].ts - last_ts < kKernelKernelDelayThresholdNs &&
             (!waits || sync_ts < last_ts)) {
    Attribute(AddEdge(*last, start, CriticalEdgeType::kKernelKernelDelay), -1);
  }
  if (o_.zero_weight_launch_edges && !launch_added && StartOf(runtime) >= 0)
    AddEdge(StartOf(runtime), start, CriticalEdgeType::kLaunchDelay, true);
  if (int32_t* l = k.Last(stream))
    *l = end;
  else
    k.last.emplace_back(stream, end);
}

void Builder::KernelEdges(const std::vector<uint32_t>& clip) {
  KernelState k;
  k.queue = QueueValues(f_);
  const std::vector<Launch> launches = RuntimeLaunches(f_);
  k.record_prev = RecordPreviousLaunch(f_, launches);
  k.wait_next = WaitNextLaunch(f_, launches);
  for (const SyncWait& w : f_.t->sync_waits) k.record_of.emplace(w.event, w.record_correlation);
  std::vector<uint32_t> gpu;  // sorted by start, syncs by end
  for (uint32_t i : clip)
    if ((f_.E(i).stream != -1 || f_.rows->names.sync[f_.E(i).name]) && HtaAtLeastZero(f_.ic[i])) gpu.push_back(i);
  auto key = [&](uint32_t i) { return f_.E(i).kind == EventKind::kCudaSync ? f_.end[i] : f_.ts[i]; };
  std::stable_sort(gpu.begin(), gpu.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  for (uint32_t i : gpu) {
    if (f_.E(i).kind == EventKind::kCudaSync)
      SyncEdges(k, i);
    else
      KernelEdge(k, i);
  }
}

// CPGraph._validate_graph: a synchronisation between two kernels of one stream means the
// before-after relations are wrong.
bool Builder::Valid(std::string* why) const {
  for (const CriticalPathGraph::Edge& e : g_->Edges()) {
    if (static_cast<CriticalEdgeType>(e.type) != CriticalEdgeType::kSync) continue;
    const int64_t a = f_.E(nodes_[static_cast<size_t>(e.from)].ev).stream;
    const int64_t b = f_.E(nodes_[static_cast<size_t>(e.to)].ev).stream;
    if (a != -1 && a == b) {
      *why = "a synchronisation between two kernels of stream " + std::to_string(a) + " (HTA rejects the graph)";
      return false;
    }
  }
  return true;
}

// CPGraph.bound_by.
CriticalBound Builder::BoundOf(const CriticalPathGraph::Edge& e) const {
  switch (static_cast<CriticalEdgeType>(e.type)) {
    case CriticalEdgeType::kKernelKernelDelay:
      return CriticalBound::kKernelKernelOverhead;
    case CriticalEdgeType::kLaunchDelay:
      return CriticalBound::kLaunchOverhead;
    case CriticalEdgeType::kDependency:
    case CriticalEdgeType::kSync:
      return CriticalBound::kDependency;
    case CriticalEdgeType::kOperatorKernel:
      break;
  }
  if (e.attributed < 0) return CriticalBound::kCpu;
  const TraceEvent& ev = f_.E(static_cast<size_t>(e.attributed));
  if (ev.stream < 0) return f_.loading[ev.name] ? CriticalBound::kDataLoading : CriticalBound::kCpu;
  return f_.rows->names.type[ev.name] == HtaKernelType::kCommunication ? CriticalBound::kGpuCommunication
                                                                       : CriticalBound::kGpuCompute;
}

// CPGraph.critical_path, get_critical_path_breakdown and summary: HTA sums the edges' own
// weights (a -1 µs edge counts -1 there, 0 in the path search).
TraceCriticalPath Builder::Summarize(const std::vector<int32_t>& path) const {
  TraceCriticalPath cp;
  cp.graph_nodes = g_->NodesWithEdges();
  cp.graph_edges = static_cast<int64_t>(g_->Edges().size());
  cp.path_nodes = path.empty() ? 0 : static_cast<int64_t>(path.size()) + 1;
  for (int k = 0; k < kCriticalEdgeTypes; ++k) cp.path_edges.push_back({static_cast<CriticalEdgeType>(k), 0});
  std::array<int64_t, kCriticalBounds> by_bound{};
  std::vector<int32_t> slot_of(f_.full.size(), -1);         // event -> its row in `by_event`
  std::vector<std::pair<int64_t, CriticalEvent>> by_event;  // (event, figures; name set for the top ones)
  std::vector<uint32_t> events;
  int64_t total = 0;
  for (int32_t id : path) {
    const CriticalPathGraph::Edge& e = g_->Edges()[static_cast<size_t>(id)];
    const uint32_t from = nodes_[static_cast<size_t>(e.from)].ev, to = nodes_[static_cast<size_t>(e.to)].ev;
    events.push_back(from);
    events.push_back(to);
    ++cp.path_edges[e.type].count;
    if (e.weight < 0) ++cp.negative_edges;
    const CriticalBound b = BoundOf(e);
    by_bound[static_cast<size_t>(b)] += e.weight;
    total += e.weight;
    cp.steps.push_back({from, to, static_cast<CriticalEdgeType>(e.type), static_cast<double>(e.weight) * kNsToS,
                        e.attributed, !nodes_[static_cast<size_t>(e.from)].start,
                        !nodes_[static_cast<size_t>(e.to)].start});
    if (e.attributed < 0) continue;
    int32_t& slot = slot_of[static_cast<size_t>(e.attributed)];
    if (slot < 0) slot = static_cast<int32_t>(by_event.size()), by_event.emplace_back(e.attributed, CriticalEvent{});
    CriticalEvent& ce = by_event[static_cast<size_t>(slot)].second;
    ce.bound = b;
    ++ce.edges;
    ce.time_s += static_cast<double>(e.weight) * kNsToS;
  }
  std::sort(events.begin(), events.end());
  events.erase(std::unique(events.begin(), events.end()), events.end());
  cp.path_events = static_cast<int64_t>(events.size());
  cp.events = std::move(events);
  cp.length_s = static_cast<double>(total) * kNsToS;
  for (int b = 0; b < kCriticalBounds; ++b) {
    if (by_bound[static_cast<size_t>(b)] == 0) continue;
    const double t = static_cast<double>(by_bound[static_cast<size_t>(b)]) * kNsToS;
    cp.bounds.push_back({static_cast<CriticalBound>(b), t, total != 0 ? 100.0 * t / cp.length_s : 0});
  }
  // The top events by time, ties by event index (first on the path's timeline).
  const size_t top = std::min(by_event.size(), static_cast<size_t>(std::max(o_.top_events, 0)));
  std::partial_sort(by_event.begin(), by_event.begin() + static_cast<std::ptrdiff_t>(top), by_event.end(),
                    [](const auto& a, const auto& b) {
                      return a.second.time_s != b.second.time_s ? a.second.time_s > b.second.time_s : a.first < b.first;
                    });
  for (size_t i = 0; i < top; ++i) {
    auto& [ev, ce] = by_event[i];
    ce.name = std::string(f_.Name(static_cast<size_t>(ev)));
    ce.stream = f_.E(static_cast<size_t>(ev)).stream;
    cp.top_events.push_back(std::move(ce));
  }
  return cp;
}

std::optional<TraceCriticalPath> Builder::Run(std::string* why) {
  int64_t start = 0, end = 0;
  if (!Window(f_, o_, &start, &end, why)) return std::nullopt;
  const std::vector<uint32_t> clip = Clip(f_, start, end);
  if (clip.size() >= static_cast<size_t>(std::numeric_limits<int32_t>::max() / 2)) {
    *why = "the window has " + std::to_string(clip.size()) + " events, more than the graph's node ids hold";
    return std::nullopt;
  }
  CreateNodes(clip);
  RuntimeLockEdges();
  CallStackEdges(clip);
  KernelEdges(clip);
  if (!Valid(why)) return std::nullopt;
  bool cyclic = false;
  const std::vector<int32_t> path = g_->LongestPath(&cyclic);
  if (cyclic) {
    *why = "the dependency graph has a cycle (HTA rejects it)";
    return std::nullopt;
  }
  TraceCriticalPath cp = Summarize(path);
  if (o_.keep_graph)
    for (const CriticalPathGraph::Edge& e : g_->Edges())
      cp.graph.push_back({nodes_[static_cast<size_t>(e.from)].ev, nodes_[static_cast<size_t>(e.to)].ev,
                          static_cast<CriticalEdgeType>(e.type), static_cast<double>(e.weight) * kNsToS, e.attributed,
                          !nodes_[static_cast<size_t>(e.from)].start, !nodes_[static_cast<size_t>(e.to)].start});
  cp.annotation = o_.annotation;
  cp.first_instance = o_.first_instance;
  cp.last_instance = o_.last_instance;
  cp.window_start_s = static_cast<double>(start) * kNsToS;
  cp.window_end_s = static_cast<double>(end) * kNsToS;
  return cp;
}

}  // namespace

std::optional<TraceCriticalPath> TraceCriticalPathOf(const RankRows& rows, const CriticalPathOptions& o,
                                                     std::string* why) {
  const Frame f = MakeFrame(rows, o);
  return Builder(f, o).Run(why);
}

}  // namespace paratune
