#include "scheduling/cluster_json.h"

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "timeline/chrome_trace.h"
#include "util/json_two_way.h"

namespace paratune {

namespace {

// The fields of each struct of paratune.cluster/1, the one list JsonWriter and JsonReader walk
// (util/json_two_way.h); `T` is const when writing. A member written only under a condition
// (p999, the CDF, the figures of models) is read under the same condition.

template <class T, class V>
void DelayFields(T& d, V& v, bool p999, bool cdf) {
  v("mean", d.mean);
  v("p50", d.p50);
  v("p99", d.p99);
  if (p999) v("p999", d.p999);
  if (cdf) v("cdf", d.cdf);
}

// The queueing delay (with p99.9 and the CDF), the job completion time (without either) and the
// time to first run (with p99.9): the same members overall and per class.
template <class T, class V>
void DelaysFields(T& m, V& v) {
  v.Nested("queue_delay_s", m.queue_delay_s, [](auto& x, auto& w) { DelayFields(x, w, true, true); });
  v.Nested("jct_s", m.jct_s, [](auto& x, auto& w) { DelayFields(x, w, false, false); });
  v.Nested("time_to_first_run_s", m.time_to_first_run_s, [](auto& x, auto& w) { DelayFields(x, w, true, false); });
}

// The figures a class has, and the whole too (PolicyMetrics has the same members).
template <class T, class V>
void ClassFields(T& c, V& v) {
  v("jobs", c.jobs);
  DelaysFields(c, v);
  v("preemptions", c.preemptions);
  v("lost_gpu_hours", c.lost_gpu_hours);
}

// by_class: an object with a member per class present, named by kJobClassNames (the reader
// takes those and ignores other members).
template <class T, class V>
void ByClassFields(T& classes, V& v) {
  if constexpr (std::is_const_v<T>) {
    for (const ClassMetrics& c : classes) v.Nested(c.job_class.c_str(), c, [](auto& x, auto& w) { ClassFields(x, w); });
  } else {
    classes.clear();
    for (size_t i = 0; i < kJobClassNames.canonical; ++i) {
      const char* name = kJobClassNames.entries[i].second;
      if (!v.view().node().contains(name)) continue;
      ClassMetrics& c = classes.emplace_back();
      c.job_class = name;
      v.Nested(name, c, [](auto& x, auto& w) { ClassFields(x, w); });
    }
  }
}

template <class T, class V>
void FragmentationFields(T& f, V& v) {
  v("mean_fragmented_gpus", f.mean_fragmented_gpus);
  v("fragmented_share_of_free", f.fragmented_share_of_free);
  v("mean_partial_nodes", f.mean_partial_nodes);
  v("mean_partial_domains", f.mean_partial_domains);
  v("pending_time_share", f.pending_time_share);
}

// A policy's figures; the slowdown and the effective MFU only when some job carried a model.
template <class T, class V>
void MetricsFields(T& m, V& v) {
  ClassFields(m, v);
  v.Nested("by_class", m.by_class, [](auto& x, auto& w) { ByClassFields(x, w); });
  v("jobs_finished", m.jobs_finished);
  v("utilization", m.utilization);
  v("allocated_gpu_hours", m.allocated_gpu_hours);
  v("capacity_gpu_hours", m.capacity_gpu_hours);
  v("useful_gpu_hours", m.useful_gpu_hours);
  v("goodput", m.goodput);
  v("split_placements", m.split_placements);
  v("split_placements_le8", m.split_placements_le8);
  v("migrations", m.migrations);
  v("restart_gpu_hours", m.restart_gpu_hours);
  v.Nested("fragmentation", m.fragmentation, [](auto& x, auto& w) { FragmentationFields(x, w); });
  v("makespan_s", m.makespan_s);
  v("mean_ettr", m.mean_ettr);
  v("models", m.models);
  if (m.models) {
    v("mean_slowdown", m.mean_slowdown);
    v("effective_mfu", m.effective_mfu);
  }
}

template <class T, class V>
void SeriesFields(T& s, V& v) {
  v("time_s", s.time_s);
  v("allocated_gpus", s.allocated_gpus);
  v("queue_length", s.queue_length);
  v("fragmented_gpus", s.fragmented_gpus);
}

template <class T, class V>
void HistogramFields(T& h, V& v) {
  v("from", h.from);
  v("jobs", h.jobs);
}

// A policy's object: its name and figures side by side, its series, and with models its histogram.
template <class T, class V>
void PolicyFields(T& p, V& v) {
  v("policy", p.policy);
  MetricsFields(p.metrics, v);
  v.Nested("series", p.series, [](auto& x, auto& w) { SeriesFields(x, w); });
  if (p.metrics.models)
    v.Nested("slowdown_histogram", p.slowdown_histogram, [](auto& x, auto& w) { HistogramFields(x, w); });
}

template <class T, class V>
void NodeTypeFields(T& t, V& v) {
  v("name", t.name);
  v("gpu", t.gpu);
  v("priced", t.priced);
  v("nodes", t.nodes);
  v("gpus_per_node", t.gpus_per_node);
  v("nodes_per_domain", t.nodes_per_domain);
  v("nodes_per_leaf", t.nodes_per_leaf);
  v("spine_oversubscription", t.spine_oversubscription);
}

template <class T, class V>
void ClusterFields(T& c, V& v) {
  v("nodes", c.nodes);
  v("gpus", c.gpus);
  v("domains", c.domains);
  v("leaves", c.leaves);
  v("description", c.description);
  v.List("node_types", c.node_types, [](auto& x, auto& w) { NodeTypeFields(x, w); });
}

template <class T, class V>
void SkippedFields(T& s, V& v) {
  v("line", s.line);
  v("reason", s.reason);
}

template <class T, class V>
void TraceFields(T& t, V& v) {
  v("path", t.path);
  v("format", t.format);
  v("jobs", t.jobs);
  v("skipped_count", t.skipped_count);
  v.List("skipped", t.skipped, [](auto& x, auto& w) { SkippedFields(x, w); });
  v.Maybe(
      "measured_queue_delay_s", t.measured_queue_delay_s,
      [](auto& x, auto& w) {
        w("jobs", x.count);
        DelayFields(x, w, true, false);
      },
      Presence::kOmittedWhenEmpty);
}

template <class T, class V>
void OptionsFields(T& o, V& v) {
  v("min_run_s", o.min_run_s);
  v("locality_wait_s", o.locality_wait_s);
  v("backfill_depth", o.backfill_depth);
  v("series_interval_s", o.series_interval_s);
}

template <class T, class V>
void ClusterDocumentFields(T& d, V& v) {
  v.Nested("cluster", d.cluster, [](auto& x, auto& w) { ClusterFields(x, w); });
  v.Nested("trace", d.trace, [](auto& x, auto& w) { TraceFields(x, w); });
  v.Nested("options", d.options, [](auto& x, auto& w) { OptionsFields(x, w); });
  v.List("policies", d.policies, [](auto& x, auto& w) { PolicyFields(x, w); });
}

// The series the report draws, evenly thinned to at most kMaxJsonSeriesPoints samples.
constexpr size_t kMaxJsonSeriesPoints = 500;
SeriesExcerpt SeriesExcerptOf(const std::vector<SeriesSample>& series) {
  SeriesExcerpt e;
  const size_t n = series.size();
  const size_t keep = std::min(n, kMaxJsonSeriesPoints);
  for (size_t k = 0; k < keep; ++k) {
    const size_t i = keep == 1 ? 0 : k * (n - 1) / (keep - 1);
    e.time_s.push_back(series[i].time_s);
    e.allocated_gpus.push_back(series[i].allocated_gpus);
    e.queue_length.push_back(series[i].queue_length);
    e.fragmented_gpus.push_back(series[i].fragmented_gpus);
  }
  return e;
}

// Jobs by the slowdown of their first run's placement (modelled jobs).
SlowdownHistogram SlowdownHistogramOf(const std::vector<JobRecord>& jobs) {
  SlowdownHistogram h{{1.0, 1.01, 1.05, 1.1, 1.25, 1.5, 2.0}, {}};
  h.jobs.assign(h.from.size(), 0);
  for (const auto& r : jobs) {
    if (!r.modelled || r.first_start_s < 0) continue;
    size_t b = 0;
    while (b + 1 < h.from.size() && r.slowdown >= h.from[b + 1]) ++b;
    ++h.jobs[b];
  }
  return h;
}

ClusterSummary ClusterSummaryOf(const ClusterTopology& t) {
  ClusterSummary c{static_cast<int64_t>(t.nodes.size()), t.total_gpus, t.domains, t.leaves, t.Describe(), {}};
  for (const auto& ty : t.types)
    c.node_types.push_back({ty.name, ty.gpu, ty.priced, ty.count, ty.fabric.gpus_per_node, ty.nodes_per_domain(),
                            ty.fabric.nodes_per_leaf, ty.fabric.spine_oversubscription});
  return c;
}

}  // namespace

ClusterDocument ClusterDocumentOf(const ClusterRun& run) {
  ClusterDocument d;
  d.cluster = ClusterSummaryOf(*run.topology);
  const JobTrace& t = *run.trace;
  d.trace = {t.path, t.format, static_cast<int64_t>(t.jobs.size()), static_cast<int64_t>(t.skipped.size()), {}, {}};
  d.trace.skipped.assign(t.skipped.begin(), t.skipped.begin() + std::min(t.skipped.size(), kMaxSkippedListed));
  d.trace.measured_queue_delay_s = MeasuredQueueDelayOf(t);
  d.options = run.options;
  for (const auto& p : run.policies) {
    ClusterPolicySummary& s = d.policies.emplace_back();
    s.policy = p.policy;
    s.metrics = p.result.metrics;
    s.series = SeriesExcerptOf(p.result.series);
    if (p.result.metrics.models) s.slowdown_histogram = SlowdownHistogramOf(p.result.jobs);
  }
  return d;
}

nlohmann::json ClusterDocumentJson(const ClusterDocument& d) {
  return WriteDocument(d, kClusterSchema, [](const auto& x, JsonWriter& w) { ClusterDocumentFields(x, w); });
}

nlohmann::json ClusterJson(const ClusterRun& run) { return ClusterDocumentJson(ClusterDocumentOf(run)); }

ClusterDocument ClusterDocumentFromJson(const nlohmann::json& doc, const std::string& where) {
  return ReadDocument<ClusterDocument>(doc, where, kClusterSchema,
                                       [](auto& x, auto& r) { ClusterDocumentFields(x, r); });
}

namespace {
// The one list of the series columns.
struct SeriesColumn {
  const char* name;
  double (*value)(const SeriesSample&, int total_gpus);
};
const SeriesColumn kSeriesColumns[] = {
    {"time_s", [](const SeriesSample& s, int) { return s.time_s; }},
    {"allocated_gpus", [](const SeriesSample& s, int) { return double(s.allocated_gpus); }},
    {"utilization", [](const SeriesSample& s, int g) { return g > 0 ? double(s.allocated_gpus) / g : 0.0; }},
    {"queue_length", [](const SeriesSample& s, int) { return double(s.queue_length); }},
    {"queued_gpus", [](const SeriesSample& s, int) { return double(s.queued_gpus); }},
    {"running_jobs", [](const SeriesSample& s, int) { return double(s.running_jobs); }},
    {"fragmented_gpus", [](const SeriesSample& s, int) { return double(s.fragmented_gpus); }},
    {"partial_nodes", [](const SeriesSample& s, int) { return double(s.partial_nodes); }},
    {"partial_domains", [](const SeriesSample& s, int) { return double(s.partial_domains); }},
};
}  // namespace

std::string SeriesCsv(const ClusterRun& run) {
  std::string out = "policy";
  for (const auto& c : kSeriesColumns) out += fmt::format(",{}", c.name);
  out += '\n';
  for (const auto& p : run.policies) {
    for (const auto& s : p.result.series) {
      out += p.policy;
      for (const auto& c : kSeriesColumns) out += fmt::format(",{}", c.value(s, run.topology->total_gpus));
      out += '\n';
    }
  }
  return out;
}

namespace {
std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}
}  // namespace

std::string JobsCsv(const ClusterRun& run) {
  std::string out =
      "policy,job,name,line,class,gpus,submit_s,run_s,first_start_s,finish_s,queue_s,runs,preemptions,migrations,"
      "lost_gpu_s,allocated_gpu_s,split_runs,slowdown,mfu,layout,note\n";
  for (const auto& p : run.policies) {
    for (const auto& r : p.result.jobs) {
      const Job& j = run.trace->jobs[r.job];
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", p.policy, r.job,
                         CsvField(j.name), j.line, JobClassName(j.job_class), j.gpus, j.submit_s, j.run_s,
                         r.first_start_s, r.finish_s, r.queue_s, r.runs, r.preemptions, r.migrations, r.lost_gpu_s,
                         r.allocated_gpu_s, r.split_runs, r.slowdown, r.mfu, CsvField(r.layout), CsvField(r.note));
    }
  }
  return out;
}

std::string PlacementTraceText(const ClusterRun& run) {
  ChromeTraceWriter w(0, {{"schema", "paratune.cluster-placements/1"}});
  const ClusterTopology& topo = *run.topology;
  for (size_t pi = 0; pi < run.policies.size(); ++pi) {
    const auto& p = run.policies[pi];
    const int64_t pid = static_cast<int64_t>(pi) + 1;
    w.ProcessName(pid, p.policy);
    w.ProcessSortIndex(pid, pid);
    for (size_t n = 0; n < topo.nodes.size(); ++n)
      w.ThreadName(pid, static_cast<int64_t>(n),
                   fmt::format("node {} (domain {}, leaf {}, {})", n, topo.nodes[n].domain, topo.nodes[n].leaf,
                               topo.types[topo.nodes[n].type].name));
    for (const auto& iv : p.result.placements) {
      const Job& j = run.trace->jobs[iv.job];
      w.Complete(pid, iv.node, iv.start_s * 1e6, (iv.end_s - iv.start_s) * 1e6, j.name, JobClassName(j.job_class),
                 {TraceArg::Int("job", iv.job), TraceArg::Int("gpus", iv.gpus), TraceArg::Int("job_gpus", j.gpus),
                  TraceArg::Int("run", iv.run), TraceArg::Str("split", iv.split ? "yes" : "no"),
                  TraceArg::Num("slowdown", iv.slowdown, 4), TraceArg::Str("end", kIntervalEndNames.Name(iv.end))});
    }
  }
  return w.Finish();
}

}  // namespace paratune
