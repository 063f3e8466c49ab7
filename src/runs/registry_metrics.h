// RegistryMetricsText: the run registry as Prometheus metrics (the `/metrics` page of
// `paratune serve --db`, docs/runs.md "Metrics"): per run every figure of kMetrics as a gauge
// named for the figure with its base unit (`paratune_run_mfu_ratio`, `paratune_run_step_time_seconds`,
// `paratune_run_tokens_per_second_per_gpu`, ...), labelled run, model, cluster, gpu and side
// (measured or predicted); the findings per run and severity; per cluster replay recorded in a
// run, each policy figure of kPolicyMetrics (`paratune_cluster_utilization_ratio{policy=...}`).
// The names are derived from the two lists, so a new figure is exported without an edit here.
#pragma once

#include <string>

#include "runs/database.h"
#include "runs/run_record.h"

namespace paratune {

// The newest runs exported per scrape: a scrape's size stays bounded whatever the registry holds.
inline constexpr int kMetricsRunLimit = 5000;

// The Prometheus name of a registry figure: `paratune_run_` + its name in base units.
std::string PrometheusRunMetricName(const MetricInfo& m);
// The Prometheus name of a cluster replay's policy figure, and the factor to its base unit.
std::string PrometheusPolicyMetricName(const PolicyMetricInfo& m);
double PrometheusPolicyMetricScale(const PolicyMetricInfo& m);

// The page: text exposition format 0.0.4 (util/prometheus_text.h).
std::string RegistryMetricsText(Database& db);

}  // namespace paratune
