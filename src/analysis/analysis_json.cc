#include "analysis/analysis_json.h"

#include <type_traits>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/file.h"
#include "util/json_parse.h"
#include "util/json_two_way.h"

namespace paratune {
namespace {

using nlohmann::json;
constexpr Presence kLater = Presence::kLater;

// The fields of each struct of paratune.analyze/1, the one list JsonWriter and JsonReader walk
// (util/json_two_way.h). `T` is the struct, const when writing. Fields marked kLater joined
// the schema after its first documents (or were not read back before the lists were shared);
// a document without them still reads. The shares (*_pct) are derived, written only.

template <class T, class V>
void TemporalFields(T& t, V& v) {
  v("kernel_time_s", t.window_s);
  v("compute_s", t.compute_s);
  v("non_compute_s", t.non_compute_s);
  v("idle_s", t.idle_s);
  v.Derived("compute_pct", t.compute_pct());
  v.Derived("non_compute_pct", t.non_compute_pct());
  v.Derived("idle_pct", t.idle_pct());
}

template <class T, class V>
void SummaryFields(T& s, V& v) {
  v("count", s.count);
  v("mean_s", s.mean);
  v("median_s", s.median);
  v("min_s", s.min);
  v("max_s", s.max);
  v("stddev_s", s.stddev, kLater);
}

template <class T, class V>
void WarningsFields(T& w, V& v) {
  v("truncated", w.truncated);
  v("bad_number", w.bad_number);
  v("missing_field", w.missing_field);
  v("negative_duration", w.negative_duration);
  v("invalid_utf8", w.invalid_utf8);
  v("malformed_event", w.malformed_event);
  v.Derived("total", w.Total());
  v.Nullable("truncated_at", w.truncated_at);
  v.Nullable("first_bad_value", w.first_bad_value);
}

template <class T, class V>
void KernelTypeFields(T& k, V& v) {
  v("label", k.label);
  v("sum_s", k.sum_s);
}

template <class T, class V>
void TopKernelFields(T& k, V& v) {
  v("name", k.name);
  v("type", k.type, kHtaKernelTypeNames);
  v("category", k.category, kKernelCategoryNames);
  v("count", k.count);
  v("sum_s", k.sum_s);
  v("mean_s", k.mean_s);
  v("min_s", k.min_s);
  v("max_s", k.max_s);
  v("stddev_s", k.stddev_s, kLater);
}

template <class T, class V>
void HtaKernelRowFields(T& k, V& v) {
  v("name", k.name);
  v("type", k.type, kHtaKernelTypeNames);
  v("sum_s", k.sum_s);
  v("max_s", k.max_s);
  v("min_s", k.min_s);
  v("mean_s", k.mean_s);
  v("stddev_s", k.stddev_s);
}

template <class T, class V>
void CategoryFields(T& c, V& v) {
  v("category", c.category, kKernelCategoryNames);
  v("count", c.count);
  v("sum_s", c.sum_s);
}

template <class T, class V>
void IdleFields(T& i, V& v) {
  v("stream", i.stream);
  v("category", i.category);
  v("idle_s", i.idle_s);
  v.Nullable("ratio", i.ratio);
  v("count", i.count);
  v("mean_s", i.mean_s);
  v("stddev_s", i.stddev_s);
  v("min_s", i.min_s);
  v("p25_s", i.p25_s);
  v("p50_s", i.p50_s);
  v("p75_s", i.p75_s);
  v("max_s", i.max_s);
}

template <class T, class V>
void LaunchFields(T& l, V& v) {
  v("launches", l.launches);
  v("cpu_duration_s", l.cpu_duration_s);
  v("gpu_duration_s", l.gpu_duration_s);
  v("launch_delay_s", l.launch_delay_s);
  v("mean_launch_delay_s", l.mean_launch_delay_s);
  v("max_launch_delay_s", l.max_launch_delay_s);
  v("short_kernels", l.short_kernels);
  v("runtime_outliers", l.runtime_outliers);
  v("launch_delay_outliers", l.launch_delay_outliers);
}

template <class T, class V>
void IterationFields(T& it, V& v) {
  v("step", it.step);
  v("cpu_step_s", it.cpu_step_s);
  v("dataloader_s", it.dataloader_s);
  v.Nested("gpu", it.gpu, [](auto& x, auto& w) { TemporalFields(x, w); });
  v.Nullable("comm_overlap_pct", it.comm_overlap_pct);
}

// A collective group's link ceiling is null until diagnose/link_ceiling.h fills it.
template <class T, class V>
void GroupFields(T& g, V& v) {
  v("group_size", g.group_size);
  v("sized_count", g.sized_count);
  v("bytes", g.bytes);
  v("bus_bytes", g.bus_bytes);
  v("sized_time_s", g.sized_time_s);
  v("busbw_bytes_per_s", g.busbw_bytes_per_s);
  v.Nullable("ceiling_bytes_per_s", g.ceiling_bytes_per_s, kLater);
  v.Nullable("ceiling_link", g.ceiling_link, kLater);
  v.Nullable("ceiling_derivation", g.ceiling_derivation, kLater);
}

template <class T, class V>
void CollectiveFields(T& c, V& v) {
  v("kind", c.kind, kCollectiveNames);
  v("count", c.count);
  v("total_s", c.total_s);
  v("exposed_s", c.exposed_s);
  v("sized_count", c.sized_count);
  v("bytes", c.bytes);
  v("sized_time_s", c.sized_time_s);
  v("algbw_bytes_per_s", c.algbw_bytes_per_s);
  v("busbw_bytes_per_s", c.busbw_bytes_per_s);
  v.List(
      "groups", c.groups, [](auto& x, auto& w) { GroupFields(x, w); }, kLater);
  v.Nullable("ceiling_bytes_per_s", c.ceiling_bytes_per_s, kLater);
  v.Nullable("ceiling_link", c.ceiling_link, kLater);
}

// A rank's measured figures that are not lists (identity, time breakdowns, launches).
template <class T, class V>
void RankFigureFields(T& r, V& v) {
  v("rank", r.rank);
  v("path", r.path);
  v("device", r.device_name);
  v("world_size", r.world_size);
  v("events", r.events);
  v("gpu_events", r.gpu_events);
  v("hta_rounding_applied", r.rounded, kLater);
  v.Nested("temporal", r.temporal, [](auto& x, auto& w) { TemporalFields(x, w); });
  v.Nullable("comm_overlap_pct", r.comm_overlap_pct);
  v.Nested("temporal_exact_ns", r.temporal_exact, [](auto& x, auto& w) { TemporalFields(x, w); });
  v.Nullable("comm_overlap_exact_ns_pct", r.comm_overlap_exact_pct, kLater);
  v.Nested("launch", r.launch, [](auto& x, auto& w) { LaunchFields(x, w); });
  v.Nested("step_time", r.step_time, [](auto& x, auto& w) { SummaryFields(x, w); });
  v("dataloader_share", r.dataloader_share);
  v.Nested(
      "warnings", r.warnings, [](auto& x, auto& w) { WarningsFields(x, w); }, kLater);
}

template <class T, class V>
void MemoryPeakFields(T& p, V& v) {
  v("step", p.step);
  v("allocated_bytes", p.allocated_bytes);
  v("reserved_bytes", p.reserved_bytes);
  v("at_s", p.at_s);
  v("running", p.running);
}

template <class T, class V>
void MemorySampleFields(T& s, V& v) {
  v("t_s", s.t_s);
  v("allocated_bytes", s.allocated_bytes);
  v("reserved_bytes", s.reserved_bytes);
}

template <class T, class V>
void MemoryFields(T& m, V& v) {
  v("device_id", m.device_id);
  v("absolute", m.absolute);
  v("events", m.events);
  v.Nested("peak", m.peak, [](auto& x, auto& w) { MemoryPeakFields(x, w); });
  v("peak_reserved_bytes", m.peak_reserved_bytes);
  v.List("steps", m.steps, [](auto& x, auto& w) { MemoryPeakFields(x, w); });
  v.List("samples", m.samples, [](auto& x, auto& w) { MemorySampleFields(x, w); });
}

template <class T, class V>
void GraphStepFields(T& s, V& v) {
  v("step", s.step);
  v("launches", s.launches);
  v("gpu_events", s.gpu_events);
  v("gpu_time_s", s.gpu_time_s);
}

template <class T, class V>
void GraphFields(T& g, V& v) {
  v("launches", g.launches);
  v("gpu_events", g.gpu_events);
  v("gpu_time_s", g.gpu_time_s);
  v("gpu_time_share", g.gpu_time_share);
  v("cpu_launch_s", g.cpu_launch_s);
  v("mean_replay_span_s", g.mean_replay_span_s);
  v.List("steps", g.steps, [](auto& x, auto& w) { GraphStepFields(x, w); });
}

template <class T, class V>
void QueueLengthFields(T& q, V& v) {
  v("stream", q.stream);
  v("count", q.count);
  v("mean", q.mean);
  v("stddev", q.stddev);
  v("min", q.min);
  v("p25", q.p25);
  v("p50", q.p50);
  v("p75", q.p75);
  v("max", q.max);
  v("time_weighted_mean", q.time_weighted_mean);
}

template <class T, class V>
void MemoryBandwidthFields(T& m, V& v) {
  v("kind", m.kind);
  v("count", m.count);
  v("mean_gbps", m.mean_gbps);
  v("stddev_gbps", m.stddev_gbps);
  v("min_gbps", m.min_gbps);
  v("p25_gbps", m.p25_gbps);
  v("p50_gbps", m.p50_gbps);
  v("p75_gbps", m.p75_gbps);
  v("max_gbps", m.max_gbps);
}

template <class T, class V>
void KernelSequenceFields(T& q, V& v) {
  v("pattern", q.pattern);
  v("count", q.count);
  v("gpu_time_s", q.gpu_time_s);
  v("cpu_time_s", q.cpu_time_s);
}

template <class T, class V>
void CriticalPathFields(T& c, V& v) {
  v("annotation", c.annotation);
  v("first_instance", c.first_instance);
  v("last_instance", c.last_instance);
  v("window_start_s", c.window_start_s);
  v("window_end_s", c.window_end_s);
  v("length_s", c.length_s);
  v("graph_nodes", c.graph_nodes);
  v("graph_edges", c.graph_edges);
  v("path_nodes", c.path_nodes);
  v("path_events", c.path_events);
  v("negative_edges", c.negative_edges);
  v.List("path_edges", c.path_edges, [](auto& x, auto& w) {
    w("type", x.type, kCriticalEdgeTypeNames);
    w("count", x.count);
  });
  v.List("bound_by", c.bounds, [](auto& x, auto& w) {
    w("bound", x.bound, kCriticalBoundNames);
    w("time_s", x.time_s);
    w("pct", x.pct);
  });
  v("collective_wait_s", c.collective_wait_s);
  v.List("waited_for", c.waited_for, [](auto& x, auto& w) {
    w("rank", x.rank);
    w("collectives", x.collectives);
    w("wait_s", x.wait_s);
  });
  v.List("top_events", c.top_events, [](auto& x, auto& w) {
    w("name", x.name);
    w("bound", x.bound, kCriticalBoundNames);
    w("stream", x.stream);
    w("edges", x.edges);
    w("time_s", x.time_s);
  });
}

template <class T, class V>
void RankFields(T& r, V& v) {
  RankFigureFields(r, v);
  v.List(
      "kernel_types", r.kernel_types, [](auto& x, auto& w) { KernelTypeFields(x, w); }, kLater);
  v.List("categories", r.categories, [](auto& x, auto& w) { CategoryFields(x, w); });
  v.List("top_kernels", r.top_kernels, [](auto& x, auto& w) { TopKernelFields(x, w); });
  v.List(
      "hta_kernel_table", r.hta_kernel_table, [](auto& x, auto& w) { HtaKernelRowFields(x, w); }, kLater);
  v.List(
      "idle", r.idle, [](auto& x, auto& w) { IdleFields(x, w); }, kLater);
  v.List("iterations", r.iterations, [](auto& x, auto& w) { IterationFields(x, w); });
  v.List("collectives", r.collectives, [](auto& x, auto& w) { CollectiveFields(x, w); });
  v.Maybe(
      "memory", r.memory, [](auto& x, auto& w) { MemoryFields(x, w); }, kLater);
  v.Nested(
      "graphs", r.graphs, [](auto& x, auto& w) { GraphFields(x, w); }, kLater);
  v.List(
      "queue_length", r.queue_length, [](auto& x, auto& w) { QueueLengthFields(x, w); }, kLater);
  v.List(
      "memory_bandwidth", r.memory_bandwidth, [](auto& x, auto& w) { MemoryBandwidthFields(x, w); }, kLater);
  v.List(
      "kernel_sequences", r.kernel_sequences, [](auto& x, auto& w) { KernelSequenceFields(x, w); }, kLater);
  v.Maybe(
      "critical_path", r.critical_path, [](auto& x, auto& w) { CriticalPathFields(x, w); },
      Presence::kOmittedWhenEmpty);
  v("critical_path_missing", r.critical_path_missing, Presence::kOmittedWhenEmpty);
}

template <class T, class V>
void StragglerRankFields(T& s, V& v) {
  v("rank", s.rank);
  v("mean_step_time_s", s.mean_step_time_s);
  v("step_time_robust_z", s.step_time_robust_z);
  v("collectives_matched", s.collectives_matched);
  v("last_arrivals", s.last_arrivals);
  v("caused_wait_s", s.caused_wait_s);
  v("waited_s", s.waited_s);
  v("straggler", s.straggler);
  v("reason", s.reason);
}

template <class T, class V>
void StepStragglerFields(T& s, V& v) {
  v("step", s.step);
  v("rank", s.rank);
  v("caused_wait_s", s.caused_wait_s);
  v("total_wait_s", s.total_wait_s);
  v("collectives", s.collectives);
}

// "flagged" is the ranks whose straggler flag is set, in input order: written, and rebuilt from
// ranks[] when read (AnalysisFromJson).
template <class T, class V>
void StragglerFields(T& s, V& v) {
  v("collectives_matched", s.collectives_matched);
  v.Derived("flagged", s.stragglers);
  v.List("ranks", s.ranks, [](auto& x, auto& w) { StragglerRankFields(x, w); });
  v.List(
      "by_step", s.by_step, [](auto& x, auto& w) { StepStragglerFields(x, w); }, kLater);
}

template <class T, class V>
void RankSpreadFields(T& s, V& v) {
  v("metric", s.metric);
  v("min", s.min);
  v("median", s.median);
  v("max", s.max);
  v("min_rank", s.min_rank);
  v("max_rank", s.max_rank);
}

template <class T, class V>
void IterationSpreadFields(T& s, V& v) {
  v("step", s.step);
  v("ranks", s.ranks);
  v("min_s", s.min_s);
  v("median_s", s.median_s);
  v("max_s", s.max_s);
  v("slowest_rank", s.slowest_rank);
}

// The options that change the figures: HTA's rounding (a bool in the document) and the last step.
template <class T, class V>
void OptionsFields(T& o, V& v) {
  bool hta = o.rounding == TimeRounding::kHta;
  v("hta_rounding", hta);
  if constexpr (!std::is_const_v<T>) o.rounding = hta ? TimeRounding::kHta : TimeRounding::kExact;
  v("include_last_step", o.include_last_step);
  v("kernel_sequence_operator", o.kernel_sequence_operator, kLater);
  v("min_sequence_length", o.min_sequence_length, kLater);
  v.Maybe(
      "critical_path", o.critical_path,
      [](auto& x, auto& w) {
        w("annotation", x.annotation);
        w("first_instance", x.first_instance);
        w("last_instance", x.last_instance);
        w("data_load_events", x.data_load_events);
        w("zero_weight_launch_edges", x.zero_weight_launch_edges);
        w("top_events", x.top_events);
      },
      Presence::kOmittedWhenEmpty);
}

template <class T, class V>
void LinkCeilingFields(T& c, V& v) {
  v("gpu", c.gpu);
  v("fabric", c.fabric);
  v("assumption", c.assumption);
}

template <class T, class V>
void AnalysisFields(T& a, V& v) {
  v("partial", a.partial, kLater);
  v.Nested(
      "options", a.options, [](auto& x, auto& w) { OptionsFields(x, w); }, kLater);
  v("events", a.events);
  v("bytes_read", a.bytes_read, kLater);
  v("profiler_steps", a.profiler_steps);
  v.List(
      "kernel_types", a.kernel_types, [](auto& x, auto& w) { KernelTypeFields(x, w); }, kLater);
  v.List("ranks", a.ranks, [](auto& x, auto& w) { RankFields(x, w); });
  v.Nested("stragglers", a.stragglers, [](auto& x, auto& w) { StragglerFields(x, w); });
  v.List(
      "cross_rank", a.cross_rank, [](auto& x, auto& w) { RankSpreadFields(x, w); }, kLater);
  v.List(
      "iterations_across_ranks", a.iterations, [](auto& x, auto& w) { IterationSpreadFields(x, w); }, kLater);
  v.Maybe(
      "link_ceiling", a.link_ceiling, [](auto& x, auto& w) { LinkCeilingFields(x, w); }, kLater);
}

}  // namespace

nlohmann::json AnalysisJson(const TraceAnalysis& a) {
  nlohmann::json out = {{"schema", kAnalyzeSchema}, {"prediction", nullptr}};
  JsonWriter w(out);
  AnalysisFields(a, w);
  return out;
}

TraceAnalysis AnalysisFromJson(const nlohmann::json& doc, const std::string& where) {
  TraceAnalysis a =
      ReadDocument<TraceAnalysis>(doc, where, kAnalyzeSchema, [](auto& x, auto& r) { AnalysisFields(x, r); });
  for (const StragglerRank& s : a.stragglers.ranks)
    if (s.straggler) a.stragglers.stragglers.push_back(s.rank);
  return a;
}

TraceAnalysis ParseAnalysisJson(std::string_view text, const std::string& where) {
  nlohmann::json doc;
  try {
    doc = ParseJson(text, where);
  } catch (const nlohmann::json::exception&) {
    throw InputError(where + ": not valid JSON");
  }
  return AnalysisFromJson(doc, where);
}

TraceAnalysis ReadAnalysisJson(const std::string& path) {
  return ParseAnalysisJson(ReadMaybeGzipFile(path, size_t{1} << 30), path);
}

}  // namespace paratune
