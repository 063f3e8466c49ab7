#include "cli/cluster_text.h"

#include <fmt/format.h>

#include <functional>
#include <vector>

namespace paratune::cli {

namespace {

std::string Duration(double s) {
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", s / 60);
  if (s < 172800) return fmt::format("{:.1f} h", s / 3600);
  return fmt::format("{:.1f} d", s / 86400);
}

const ClassMetrics* Class(const PolicyMetrics& m, const char* name) {
  for (const auto& c : m.by_class)
    if (c.job_class == name) return &c;
  return nullptr;
}

struct Row {
  std::string label;
  std::function<std::string(const PolicyMetrics&)> cell;
};

// The rows of the policies' table: the metrics every replay has, the production and
// experimental queues where the trace has classes, the modelled slowdown where jobs have models.
std::vector<Row> SummaryRows(bool classes, bool models) {
  std::vector<Row> rows = {
      {"jobs finished", [](const PolicyMetrics& m) { return fmt::format("{}/{}", m.jobs_finished, m.jobs); }},
      {"makespan", [](const PolicyMetrics& m) { return Duration(m.makespan_s); }},
      {"utilization (allocated)", [](const PolicyMetrics& m) { return fmt::format("{:.1f}%", 100 * m.utilization); }},
      {"goodput (useful)", [](const PolicyMetrics& m) { return fmt::format("{:.1f}%", 100 * m.goodput); }},
      {"useful GPU-hours", [](const PolicyMetrics& m) { return fmt::format("{:.0f}", m.useful_gpu_hours); }},
      {"queue delay mean", [](const PolicyMetrics& m) { return Duration(m.queue_delay_s.mean); }},
      {"queue delay p50", [](const PolicyMetrics& m) { return Duration(m.queue_delay_s.p50); }},
      {"queue delay p99", [](const PolicyMetrics& m) { return Duration(m.queue_delay_s.p99); }},
      {"queue delay p99.9", [](const PolicyMetrics& m) { return Duration(m.queue_delay_s.p999); }},
      {"JCT mean", [](const PolicyMetrics& m) { return Duration(m.jct_s.mean); }},
      {"JCT p99", [](const PolicyMetrics& m) { return Duration(m.jct_s.p99); }},
      {"time to first run mean", [](const PolicyMetrics& m) { return Duration(m.time_to_first_run_s.mean); }},
      {"split placements", [](const PolicyMetrics& m) { return fmt::format("{}", m.split_placements); }},
      {"  of jobs <= 8 GPUs", [](const PolicyMetrics& m) { return fmt::format("{}", m.split_placements_le8); }},
      {"fragmented free GPUs",
       [](const PolicyMetrics& m) {
         return fmt::format("{:.1f} ({:.0f}%)", m.fragmentation.mean_fragmented_gpus,
                            100 * m.fragmentation.fragmented_share_of_free);
       }},
      {"nodes 1-7 GPUs free",
       [](const PolicyMetrics& m) { return fmt::format("{:.1f}", m.fragmentation.mean_partial_nodes); }},
      {"domains partly free",
       [](const PolicyMetrics& m) { return fmt::format("{:.1f}", m.fragmentation.mean_partial_domains); }},
      {"preemptions", [](const PolicyMetrics& m) { return fmt::format("{}", m.preemptions); }},
      {"migrations", [](const PolicyMetrics& m) { return fmt::format("{}", m.migrations); }},
      {"GPU-hours lost", [](const PolicyMetrics& m) { return fmt::format("{:.1f}", m.lost_gpu_hours); }},
      {"GPU-hours restarting", [](const PolicyMetrics& m) { return fmt::format("{:.1f}", m.restart_gpu_hours); }},
      {"mean ETTR", [](const PolicyMetrics& m) { return fmt::format("{:.3f}", m.mean_ettr); }},
  };
  if (classes) {
    for (const char* c : {"production", "experimental"}) {
      rows.push_back({fmt::format("{} queue mean", c), [c](const PolicyMetrics& m) {
                        const ClassMetrics* cm = Class(m, c);
                        return cm ? Duration(cm->queue_delay_s.mean) : std::string("-");
                      }});
      rows.push_back({fmt::format("{} queue p99", c), [c](const PolicyMetrics& m) {
                        const ClassMetrics* cm = Class(m, c);
                        return cm ? Duration(cm->queue_delay_s.p99) : std::string("-");
                      }});
    }
  }
  if (models) {
    rows.push_back(
        {"mean slowdown (modelled)", [](const PolicyMetrics& m) { return fmt::format("{:.3f}x", m.mean_slowdown); }});
    rows.push_back(
        {"effective MFU", [](const PolicyMetrics& m) { return fmt::format("{:.1f}%", 100 * m.effective_mfu); }});
  }
  return rows;
}

// The rows as a table, one column per policy, each as wide as its widest cell.
std::string SummaryTable(const ClusterRun& run, const std::vector<Row>& rows) {
  std::string out;
  size_t label_w = 0;
  for (const auto& r : rows) label_w = std::max(label_w, r.label.size());
  std::vector<size_t> col_w;
  for (const auto& p : run.policies) {
    size_t w = p.policy.size();
    for (const auto& r : rows) w = std::max(w, r.cell(p.result.metrics).size());
    col_w.push_back(w);
  }
  out += fmt::format("{:<{}}", "", label_w);
  for (size_t i = 0; i < run.policies.size(); ++i) out += fmt::format("  {:>{}}", run.policies[i].policy, col_w[i]);
  out += '\n';
  for (const auto& r : rows) {
    out += fmt::format("{:<{}}", r.label, label_w);
    for (size_t i = 0; i < run.policies.size(); ++i)
      out += fmt::format("  {:>{}}", r.cell(run.policies[i].result.metrics), col_w[i]);
    out += '\n';
  }
  return out;
}

// The queueing delay the history recorded beside each policy's replayed mean (issue 37: a replay
// of the cluster's own history under its configuration should reproduce it); "" without one.
std::string MeasuredQueueLine(const ClusterRun& run) {
  const std::optional<DelayStats> measured = MeasuredQueueDelayOf(*run.trace);
  if (!measured) return "";
  std::string out =
      fmt::format("\nhistory  queue delay as recorded: mean {}, p50 {}, p99 {} ({} jobs)\n", Duration(measured->mean),
                  Duration(measured->p50), Duration(measured->p99), measured->count);
  if (measured->mean > 0) {
    out += "         replayed mean against it:";
    for (const auto& p : run.policies)
      out += fmt::format(" {} {:+.0f}%", p.policy, 100 * (p.result.metrics.queue_delay_s.mean / measured->mean - 1));
    out += '\n';
  }
  return out;
}

}  // namespace

std::string FormatClusterSummary(const ClusterRun& run) {
  const JobTrace& t = *run.trace;
  std::string out = fmt::format("cluster  {}\n", run.topology->Describe());
  out += fmt::format("trace    {} ({}): {} jobs replayed, {} rows skipped\n", t.path, t.format, t.jobs.size(),
                     t.skipped.size());
  for (size_t i = 0; i < t.skipped.size() && i < 5; ++i)
    out += fmt::format("         line {}: {}\n", t.skipped[i].line, t.skipped[i].reason);
  if (t.skipped.size() > 5) out += fmt::format("         ... {} more (--json lists them)\n", t.skipped.size() - 5);
  out += '\n';
  bool models = false, classes = false;
  for (const auto& p : run.policies) {
    models = models || p.result.metrics.models;
    classes = classes || Class(p.result.metrics, "production") != nullptr;
  }
  out += SummaryTable(run, SummaryRows(classes, models));
  return out + MeasuredQueueLine(run);
}

}  // namespace paratune::cli
