// The paratune.cluster/1 section: the policies side by side (utilisation and goodput, queueing
// delay overall and per class, split placements, fragmentation), utilisation and queue length
// over time per policy, the queueing-delay CDF per class, and with models the jobs by the
// slowdown of their placement.
#include <fmt/format.h>

#include "report/bar_chart.h"
#include "report/data_table.h"
#include "report/line_chart.h"
#include "report/scale.h"
#include "report/sections.h"

namespace paratune {

namespace {

std::vector<double> Numbers(const JsonFields& f, const std::string& path) {
  std::vector<double> out;
  const nlohmann::json* a = f.Find(path);
  if (!a) return out;
  if (!a->is_array()) f.Fail(path, "is not an array");
  for (size_t i = 0; i < a->size(); ++i) out.push_back(f.Number(fmt::format("{}[{}]", path, i)));
  return out;
}

// The number at key of each of the n policies (0 where it is missing).
std::vector<double> ClusterPerPolicy(const JsonFields& f, size_t n, const std::string& key) {
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(f.NumberOr(fmt::format("policies[{}].{}", i, key), 0));
  return v;
}

// The utilisation-and-goodput and the queueing-delay bar charts, a bar group per policy.
std::string ClusterPolicyCharts(const JsonFields& f, const std::string& id, const std::vector<std::string>& names) {
  const size_t n = names.size();
  BarChartData util;
  util.spec = {
      id + "-utilization",
      "Utilisation and goodput per policy",
      "Allocated GPU-time and useful GPU-time (work at packed speed, lost work excluded) as shares of the capacity.",
      "policy",
      "share of capacity",
      "",
      "fraction"};
  util.categories = names;
  util.series = {{"utilisation", ClusterPerPolicy(f, n, "utilization")},
                 {"goodput", ClusterPerPolicy(f, n, "goodput")}};
  std::string html = RenderBarChart(util);

  BarChartData queue;
  queue.spec = {id + "-queue",
                "Queueing delay per policy",
                "Mean, p99 and p99.9 time jobs wait, before the first run and after preemptions.",
                "policy",
                "queueing delay",
                "",
                "s"};
  queue.categories = names;
  queue.series = {{"mean", ClusterPerPolicy(f, n, "queue_delay_s.mean")},
                  {"p99", ClusterPerPolicy(f, n, "queue_delay_s.p99")},
                  {"p99.9", ClusterPerPolicy(f, n, "queue_delay_s.p999")}};
  html += RenderBarChart(queue);
  return html;
}

// Per class, when the trace has classes: its queueing delay per policy and its queueing-delay CDF.
std::string ClusterClassCharts(const JsonFields& f, const std::string& id, const std::vector<std::string>& names) {
  const size_t n = names.size();
  std::string html;
  for (const char* c : {"production", "experimental"}) {
    bool present = false;
    for (size_t i = 0; i < n; ++i) present = present || f.Find(fmt::format("policies[{}].by_class.{}", i, c));
    if (!present) continue;
    BarChartData q;
    q.spec = {id + "-queue-" + c,
              fmt::format("Queueing delay of {} jobs", c),
              fmt::format("Mean and p99 queueing delay of the {} class under each policy.", c),
              "policy",
              "queueing delay",
              "",
              "s"};
    q.categories = names;
    q.series = {{"mean", ClusterPerPolicy(f, n, fmt::format("by_class.{}.queue_delay_s.mean", c))},
                {"p99", ClusterPerPolicy(f, n, fmt::format("by_class.{}.queue_delay_s.p99", c))}};
    html += RenderBarChart(q);
    LineChartData cdf;
    cdf.spec = {id + "-cdf-" + c,
                fmt::format("Queueing-delay CDF, {} jobs", c),
                fmt::format("Share of {} jobs that waited at most x, per policy.", c),
                "queueing delay",
                "share of jobs",
                "s",
                "fraction"};
    for (size_t i = 0; i < n; ++i) {
      std::vector<double> x = Numbers(f, fmt::format("policies[{}].by_class.{}.queue_delay_s.cdf", i, c));
      std::vector<double> y;
      for (size_t k = 0; k < x.size(); ++k) y.push_back(x.size() > 1 ? static_cast<double>(k) / (x.size() - 1) : 1.0);
      cdf.series.push_back({names[i], x, y});
    }
    html += RenderLineChart(cdf);
  }
  return html;
}

// The split-placements and the fragmentation bar charts, a bar group per policy.
std::string ClusterPlacementCharts(const JsonFields& f, const std::string& id, const std::vector<std::string>& names) {
  const size_t n = names.size();
  BarChartData split;
  split.spec = {id + "-splits",
                "Split placements per policy",
                "Runs placed on more nodes or NVLink domains than the job needs, and those of jobs of at most 8 GPUs.",
                "policy",
                "runs",
                "",
                ""};
  split.categories = names;
  split.series = {{"split placements", ClusterPerPolicy(f, n, "split_placements")},
                  {"of jobs <= 8 GPUs", ClusterPerPolicy(f, n, "split_placements_le8")}};
  std::string html = RenderBarChart(split);

  BarChartData frag;
  frag.spec = {
      id + "-fragmentation",
      "Fragmentation per policy",
      "Share of the free GPUs that could not host the next pending job, averaged over the time a job was pending.",
      "policy",
      "share of free GPUs",
      "",
      "fraction"};
  frag.categories = names;
  frag.series = {{"fragmented share of free", ClusterPerPolicy(f, n, "fragmentation.fragmented_share_of_free")}};
  html += RenderBarChart(frag);
  return html;
}

// The allocated GPUs and the queue length over time, a line per policy with a sampled series.
std::string ClusterTimeCharts(const JsonFields& f, const std::string& id, const std::vector<std::string>& names) {
  LineChartData alloc, qlen;
  alloc.spec = {id + "-allocated",
                "Allocated GPUs over time",
                "GPUs held by running jobs, per policy, sampled.",
                "time",
                "GPUs",
                "s",
                ""};
  qlen.spec = {
      id + "-queue-length", "Queue length over time", "Jobs pending, per policy, sampled.", "time", "jobs", "s", ""};
  alloc.step = qlen.step = true;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string p = fmt::format("policies[{}].series", i);
    const std::vector<double> t = Numbers(f, p + ".time_s");
    if (t.empty()) continue;
    alloc.series.push_back({names[i], t, Numbers(f, p + ".allocated_gpus")});
    qlen.series.push_back({names[i], t, Numbers(f, p + ".queue_length")});
  }
  if (alloc.series.empty()) return "";
  return RenderLineChart(alloc) + RenderLineChart(qlen);
}

// With models, the jobs by the slowdown of their first placement, a bar per policy; else "".
std::string ClusterSlowdownChart(const JsonFields& f, const std::string& id, const std::vector<std::string>& names) {
  const size_t n = names.size();
  bool models = false;
  for (size_t i = 0; i < n; ++i) models = models || f.Find(fmt::format("policies[{}].slowdown_histogram", i));
  if (!models) return "";
  BarChartData slow;
  slow.spec = {id + "-slowdown",
               "Jobs by placement slowdown",
               "Modelled jobs by the slowdown of their first placement against a packed one (cost model).",
               "slowdown",
               "jobs",
               "",
               ""};
  const std::vector<double> from = Numbers(f, "policies[0].slowdown_histogram.from");
  for (size_t b = 0; b < from.size(); ++b)
    slow.categories.push_back(b + 1 < from.size() ? fmt::format("{:g}-{:g}x", from[b], from[b + 1])
                                                  : fmt::format(">= {:g}x", from[b]));
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> jobs = Numbers(f, fmt::format("policies[{}].slowdown_histogram.jobs", i));
    jobs.resize(from.size(), 0);
    slow.series.push_back({names[i], jobs});
  }
  return RenderBarChart(slow);
}

}  // namespace

std::string RenderClusterSection(const ReportInput& in) {
  const JsonFields f(in.doc, in.path);
  const std::string id = ChartId(in.path, "cluster");
  const nlohmann::json& pols = f.Array("policies");
  std::string html = Paragraph(fmt::format("{} ({} GPUs); trace {} ({}): {} jobs replayed, {} rows skipped.",
                                           f.StringOr("cluster.description", "cluster"), f.NumberOr("cluster.gpus", 0),
                                           f.StringOr("trace.path", "?"), f.StringOr("trace.format", "?"),
                                           f.NumberOr("trace.jobs", 0), f.NumberOr("trace.skipped_count", 0)));
  std::vector<std::string> names;
  for (size_t i = 0; i < pols.size(); ++i) names.push_back(f.String(fmt::format("policies[{}].policy", i)));
  html += ClusterPolicyCharts(f, id, names);
  html += ClusterClassCharts(f, id, names);
  html += ClusterPlacementCharts(f, id, names);
  html += ClusterTimeCharts(f, id, names);
  html += ClusterSlowdownChart(f, id, names);
  return html;
}

}  // namespace paratune
