#include "scheduling/cluster_json.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "timeline/chrome_trace.h"

namespace paratune {

namespace {

nlohmann::json DelaysJson(const DelayStats& d, bool p999 = true, bool cdf = false) {
  nlohmann::json j = {{"mean", d.mean}, {"p50", d.p50}, {"p99", d.p99}};
  if (p999) j["p999"] = d.p999;
  if (cdf) j["cdf"] = d.cdf;
  return j;
}

// The series the report draws, evenly thinned to at most kMaxJsonSeriesPoints samples.
constexpr size_t kMaxJsonSeriesPoints = 500;
nlohmann::json SeriesJson(const std::vector<SeriesSample>& series) {
  nlohmann::json t = nlohmann::json::array(), alloc = nlohmann::json::array(), queue = nlohmann::json::array(),
                 frag = nlohmann::json::array();
  const size_t n = series.size();
  const size_t keep = std::min(n, kMaxJsonSeriesPoints);
  for (size_t k = 0; k < keep; ++k) {
    const size_t i = keep == 1 ? 0 : k * (n - 1) / (keep - 1);
    t.push_back(series[i].time_s);
    alloc.push_back(series[i].allocated_gpus);
    queue.push_back(series[i].queue_length);
    frag.push_back(series[i].fragmented_gpus);
  }
  return {{"time_s", t}, {"allocated_gpus", alloc}, {"queue_length", queue}, {"fragmented_gpus", frag}};
}

// Jobs by the slowdown of their first run's placement (modelled jobs).
nlohmann::json SlowdownHistogram(const std::vector<JobRecord>& jobs) {
  const std::vector<double> edges = {1.0, 1.01, 1.05, 1.1, 1.25, 1.5, 2.0};
  std::vector<int64_t> counts(edges.size(), 0);
  for (const auto& r : jobs) {
    if (!r.modelled || r.first_start_s < 0) continue;
    size_t b = 0;
    while (b + 1 < edges.size() && r.slowdown >= edges[b + 1]) ++b;
    ++counts[b];
  }
  return {{"from", edges}, {"jobs", counts}};
}

nlohmann::json TopologyJson(const ClusterTopology& t) {
  nlohmann::json types = nlohmann::json::array();
  for (const auto& ty : t.types)
    types.push_back({{"name", ty.name},
                     {"gpu", ty.gpu},
                     {"priced", ty.priced},
                     {"nodes", ty.count},
                     {"gpus_per_node", ty.fabric.gpus_per_node},
                     {"nodes_per_domain", ty.nodes_per_domain()},
                     {"nodes_per_leaf", ty.fabric.nodes_per_leaf},
                     {"spine_oversubscription", ty.fabric.spine_oversubscription}});
  return {{"nodes", t.nodes.size()}, {"gpus", t.total_gpus},        {"domains", t.domains},
          {"leaves", t.leaves},      {"description", t.Describe()}, {"node_types", types}};
}

nlohmann::json MetricsJson(const PolicyMetrics& m) {
  nlohmann::json by_class = nlohmann::json::object();
  for (const auto& c : m.by_class)
    by_class[c.job_class] = {{"jobs", c.jobs},
                             {"queue_delay_s", DelaysJson(c.queue_delay_s, true, true)},
                             {"jct_s", DelaysJson(c.jct_s, false)},
                             {"time_to_first_run_s", DelaysJson(c.time_to_first_run_s)},
                             {"preemptions", c.preemptions},
                             {"lost_gpu_hours", c.lost_gpu_hours}};
  nlohmann::json j = {
      {"jobs", m.jobs},
      {"jobs_finished", m.jobs_finished},
      {"utilization", m.utilization},
      {"allocated_gpu_hours", m.allocated_gpu_hours},
      {"capacity_gpu_hours", m.capacity_gpu_hours},
      {"useful_gpu_hours", m.useful_gpu_hours},
      {"goodput", m.goodput},
      {"split_placements", m.split_placements},
      {"split_placements_le8", m.split_placements_le8},
      {"queue_delay_s", DelaysJson(m.queue_delay_s, true, true)},
      {"by_class", by_class},
      {"jct_s", DelaysJson(m.jct_s, false)},
      {"time_to_first_run_s", DelaysJson(m.time_to_first_run_s)},
      {"preemptions", m.preemptions},
      {"migrations", m.migrations},
      {"lost_gpu_hours", m.lost_gpu_hours},
      {"restart_gpu_hours", m.restart_gpu_hours},
      {"fragmentation",
       {{"mean_fragmented_gpus", m.fragmentation.mean_fragmented_gpus},
        {"fragmented_share_of_free", m.fragmentation.fragmented_share_of_free},
        {"mean_partial_nodes", m.fragmentation.mean_partial_nodes},
        {"mean_partial_domains", m.fragmentation.mean_partial_domains},
        {"pending_time_share", m.fragmentation.pending_time_share}}},
      {"makespan_s", m.makespan_s},
      {"mean_ettr", m.mean_ettr},
      {"models", m.models},
  };
  if (m.models) {
    j["mean_slowdown"] = m.mean_slowdown;
    j["effective_mfu"] = m.effective_mfu;
  }
  return j;
}

}  // namespace

nlohmann::json ClusterJson(const ClusterRun& run) {
  nlohmann::json skipped = nlohmann::json::array();
  for (size_t i = 0; i < run.trace->skipped.size() && i < kMaxSkippedListed; ++i)
    skipped.push_back({{"line", run.trace->skipped[i].line}, {"reason", run.trace->skipped[i].reason}});
  nlohmann::json policies = nlohmann::json::array();
  for (const auto& p : run.policies) {
    nlohmann::json m = MetricsJson(p.result.metrics);
    m["policy"] = p.policy;
    m["series"] = SeriesJson(p.result.series);
    if (p.result.metrics.models) m["slowdown_histogram"] = SlowdownHistogram(p.result.jobs);
    policies.push_back(std::move(m));
  }
  const ReplayOptions& o = run.options;
  return {{"schema", kClusterSchema},
          {"cluster", TopologyJson(*run.topology)},
          {"trace",
           {{"path", run.trace->path},
            {"format", run.trace->format},
            {"jobs", run.trace->jobs.size()},
            {"skipped_count", run.trace->skipped.size()},
            {"skipped", skipped}}},
          {"options",
           {{"min_run_s", o.min_run_s},
            {"locality_wait_s", o.locality_wait_s},
            {"backfill_depth", o.backfill_depth},
            {"series_interval_s", o.series_interval_s}}},
          {"policies", policies}};
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
