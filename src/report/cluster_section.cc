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
#include "scheduling/cluster_json.h"

namespace paratune {

namespace {

// A figure of each policy, in the document's order.
template <class F>
std::vector<double> PerPolicy(const ClusterDocument& d, F figure) {
  std::vector<double> v;
  for (const ClusterPolicySummary& p : d.policies) v.push_back(static_cast<double>(figure(p.metrics)));
  return v;
}

// The figures of class `c` under a policy, or null where the policy has no job of it.
const ClassMetrics* ClassOf(const PolicyMetrics& m, std::string_view c) {
  for (const ClassMetrics& k : m.by_class)
    if (k.job_class == c) return &k;
  return nullptr;
}

std::vector<double> Doubles(const std::vector<int>& xs) { return std::vector<double>(xs.begin(), xs.end()); }

// The utilisation-and-goodput and the queueing-delay bar charts, a bar group per policy.
std::string ClusterPolicyCharts(const ClusterDocument& d, const std::string& id,
                                const std::vector<std::string>& names) {
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
  util.series = {{"utilisation", PerPolicy(d, [](const PolicyMetrics& m) { return m.utilization; })},
                 {"goodput", PerPolicy(d, [](const PolicyMetrics& m) { return m.goodput; })}};
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
  queue.series = {{"mean", PerPolicy(d, [](const PolicyMetrics& m) { return m.queue_delay_s.mean; })},
                  {"p99", PerPolicy(d, [](const PolicyMetrics& m) { return m.queue_delay_s.p99; })},
                  {"p99.9", PerPolicy(d, [](const PolicyMetrics& m) { return m.queue_delay_s.p999; })}};
  html += RenderBarChart(queue);
  return html;
}

// Per class, when the trace has classes: its queueing delay per policy and its queueing-delay CDF.
std::string ClusterClassCharts(const ClusterDocument& d, const std::string& id, const std::vector<std::string>& names) {
  std::string html;
  for (const char* c : {"production", "experimental"}) {
    bool present = false;
    for (const ClusterPolicySummary& p : d.policies) present = present || ClassOf(p.metrics, c);
    if (!present) continue;
    // A figure of the class under each policy, 0 where the policy has no job of it.
    auto per_policy = [&](double DelayStats::*figure) {
      return PerPolicy(d, [&](const PolicyMetrics& m) {
        const ClassMetrics* k = ClassOf(m, c);
        return k ? k->queue_delay_s.*figure : 0.0;
      });
    };
    BarChartData q;
    q.spec = {id + "-queue-" + c,
              fmt::format("Queueing delay of {} jobs", c),
              fmt::format("Mean and p99 queueing delay of the {} class under each policy.", c),
              "policy",
              "queueing delay",
              "",
              "s"};
    q.categories = names;
    q.series = {{"mean", per_policy(&DelayStats::mean)}, {"p99", per_policy(&DelayStats::p99)}};
    html += RenderBarChart(q);
    LineChartData cdf;
    cdf.spec = {id + "-cdf-" + c,
                fmt::format("Queueing-delay CDF, {} jobs", c),
                fmt::format("Share of {} jobs that waited at most x, per policy.", c),
                "queueing delay",
                "share of jobs",
                "s",
                "fraction"};
    for (size_t i = 0; i < names.size(); ++i) {
      const ClassMetrics* cls = ClassOf(d.policies[i].metrics, c);
      std::vector<double> x = cls ? cls->queue_delay_s.cdf : std::vector<double>();
      std::vector<double> y;
      for (size_t k = 0; k < x.size(); ++k) y.push_back(x.size() > 1 ? static_cast<double>(k) / (x.size() - 1) : 1.0);
      cdf.series.push_back({names[i], x, y});
    }
    html += RenderLineChart(cdf);
  }
  return html;
}

// The split-placements and the fragmentation bar charts, a bar group per policy.
std::string ClusterPlacementCharts(const ClusterDocument& d, const std::string& id,
                                   const std::vector<std::string>& names) {
  BarChartData split;
  split.spec = {id + "-splits",
                "Split placements per policy",
                "Runs placed on more nodes or NVLink domains than the job needs, and those of jobs of at most 8 GPUs.",
                "policy",
                "runs",
                "",
                ""};
  split.categories = names;
  split.series = {{"split placements", PerPolicy(d, [](const PolicyMetrics& m) { return m.split_placements; })},
                  {"of jobs <= 8 GPUs", PerPolicy(d, [](const PolicyMetrics& m) { return m.split_placements_le8; })}};
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
  frag.series = {{"fragmented share of free",
                  PerPolicy(d, [](const PolicyMetrics& m) { return m.fragmentation.fragmented_share_of_free; })}};
  html += RenderBarChart(frag);
  return html;
}

// The allocated GPUs and the queue length over time, a line per policy with a sampled series.
std::string ClusterTimeCharts(const ClusterDocument& d, const std::string& id, const std::vector<std::string>& names) {
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
    const SeriesExcerpt& s = d.policies[i].series;
    if (s.time_s.empty()) continue;
    alloc.series.push_back({names[i], s.time_s, Doubles(s.allocated_gpus)});
    qlen.series.push_back({names[i], s.time_s, Doubles(s.queue_length)});
  }
  if (alloc.series.empty()) return "";
  return RenderLineChart(alloc) + RenderLineChart(qlen);
}

// With models, the jobs by the slowdown of their first placement, a bar per policy; else "".
std::string ClusterSlowdownChart(const ClusterDocument& d, const std::string& id,
                                 const std::vector<std::string>& names) {
  bool models = false;
  for (const ClusterPolicySummary& p : d.policies) models = models || p.metrics.models;
  if (!models) return "";
  BarChartData slow;
  slow.spec = {id + "-slowdown",
               "Jobs by placement slowdown",
               "Modelled jobs by the slowdown of their first placement against a packed one (cost model).",
               "slowdown",
               "jobs",
               "",
               ""};
  const std::vector<double>& from = d.policies[0].slowdown_histogram.from;
  for (size_t b = 0; b < from.size(); ++b)
    slow.categories.push_back(b + 1 < from.size() ? fmt::format("{:g}-{:g}x", from[b], from[b + 1])
                                                  : fmt::format(">= {:g}x", from[b]));
  for (size_t i = 0; i < names.size(); ++i) {
    const std::vector<int64_t>& counts = d.policies[i].slowdown_histogram.jobs;
    std::vector<double> jobs(counts.begin(), counts.end());
    jobs.resize(from.size(), 0);
    slow.series.push_back({names[i], jobs});
  }
  return RenderBarChart(slow);
}

}  // namespace

std::string RenderClusterSection(const ReportInput& in) {
  const ClusterDocument d = ClusterDocumentFromJson(in.doc, in.path);
  const std::string id = ChartId(in.path, "cluster");
  std::string html =
      Paragraph(fmt::format("{} ({} GPUs); trace {} ({}): {} jobs replayed, {} rows skipped.", d.cluster.description,
                            static_cast<double>(d.cluster.gpus), d.trace.path, d.trace.format,
                            static_cast<double>(d.trace.jobs), static_cast<double>(d.trace.skipped_count)));
  std::vector<std::string> names;
  for (const ClusterPolicySummary& p : d.policies) names.push_back(p.policy);
  html += ClusterPolicyCharts(d, id, names);
  html += ClusterClassCharts(d, id, names);
  html += ClusterPlacementCharts(d, id, names);
  html += ClusterTimeCharts(d, id, names);
  html += ClusterSlowdownChart(d, id, names);
  return html;
}

}  // namespace paratune
