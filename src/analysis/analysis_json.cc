#include "analysis/analysis_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace paratune {
namespace {

nlohmann::json Num(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

nlohmann::json Temporal(const GpuTimeBreakdown& t) {
  return {{"kernel_time_s", t.window_s}, {"compute_s", t.compute_s},       {"non_compute_s", t.non_compute_s},
          {"idle_s", t.idle_s},          {"compute_pct", t.compute_pct()}, {"non_compute_pct", t.non_compute_pct()},
          {"idle_pct", t.idle_pct()}};
}

nlohmann::json Summary(const SummaryStats& s) {
  return {{"count", s.count}, {"mean_s", s.mean}, {"median_s", s.median},
          {"min_s", s.min},   {"max_s", s.max},   {"stddev_s", s.stddev}};
}

nlohmann::json Warnings(const TraceWarnings& w) {
  return {{"truncated", w.truncated},
          {"bad_number", w.bad_number},
          {"missing_field", w.missing_field},
          {"negative_duration", w.negative_duration},
          {"invalid_utf8", w.invalid_utf8},
          {"malformed_event", w.malformed_event},
          {"total", w.Total()},
          {"truncated_at", w.truncated_at.empty() ? nlohmann::json(nullptr) : nlohmann::json(w.truncated_at)},
          {"first_bad_value", w.first_bad_value.empty() ? nlohmann::json(nullptr) : nlohmann::json(w.first_bad_value)}};
}

nlohmann::json CrossRankJson(const TraceAnalysis& a) {
  nlohmann::json out = nlohmann::json::array();
  for (const RankSpread& s : a.cross_rank)
    out.push_back({{"metric", s.metric},
                   {"min", s.min},
                   {"median", s.median},
                   {"max", s.max},
                   {"min_rank", s.min_rank},
                   {"max_rank", s.max_rank}});
  return out;
}

nlohmann::json IterationsAcrossRanks(const TraceAnalysis& a) {
  nlohmann::json out = nlohmann::json::array();
  for (const IterationSpread& s : a.iterations)
    out.push_back({{"step", s.step},
                   {"ranks", s.ranks},
                   {"min_s", s.min_s},
                   {"median_s", s.median_s},
                   {"max_s", s.max_s},
                   {"slowest_rank", s.slowest_rank}});
  return out;
}

nlohmann::json StragglersByStep(const TraceAnalysis& a) {
  nlohmann::json out = nlohmann::json::array();
  for (const StepStraggler& s : a.stragglers.by_step)
    out.push_back({{"step", s.step},
                   {"rank", s.rank},
                   {"caused_wait_s", s.caused_wait_s},
                   {"total_wait_s", s.total_wait_s},
                   {"collectives", s.collectives}});
  return out;
}

// The link ceiling members are null here; the caller fills them when it knows the hardware
// (diagnose/link_ceiling.h AddCollectiveCeilings).
nlohmann::json Groups(const CollectiveStats& c) {
  nlohmann::json out = nlohmann::json::array();
  for (const CollectiveGroupStats& g : c.groups)
    out.push_back({{"group_size", g.group_size},
                   {"sized_count", g.sized_count},
                   {"bytes", g.bytes},
                   {"bus_bytes", g.bus_bytes},
                   {"sized_time_s", g.sized_time_s},
                   {"busbw_bytes_per_s", g.busbw_bytes_per_s},
                   {"ceiling_bytes_per_s", nullptr},
                   {"ceiling_link", nullptr},
                   {"ceiling_derivation", nullptr}});
  return out;
}

// Kernel time by HTA kernel type (label and seconds).
nlohmann::json KernelTypesJson(const std::vector<KernelTypeShare>& types) {
  nlohmann::json kt = nlohmann::json::array();
  for (const auto& k : types) kt.push_back({{"label", k.label}, {"sum_s", k.sum_s}});
  return kt;
}

// The rank's longest-running kernels.
nlohmann::json TopKernelsJson(const RankAnalysis& r) {
  nlohmann::json top = nlohmann::json::array();
  for (const auto& k : r.top_kernels)
    top.push_back({{"name", k.name},
                   {"type", HtaKernelTypeName(k.type)},
                   {"category", KernelCategoryName(k.category)},
                   {"count", k.count},
                   {"sum_s", k.sum_s},
                   {"mean_s", k.mean_s},
                   {"min_s", k.min_s},
                   {"max_s", k.max_s},
                   {"stddev_s", k.stddev_s}});
  return top;
}

// The rank's rows of HTA's kernel_df.
nlohmann::json HtaKernelTableJson(const RankAnalysis& r) {
  nlohmann::json hta = nlohmann::json::array();
  for (const auto& k : r.hta_kernel_table)
    hta.push_back({{"name", k.name},
                   {"type", HtaKernelTypeName(k.type)},
                   {"sum_s", k.sum_s},
                   {"max_s", k.max_s},
                   {"min_s", k.min_s},
                   {"mean_s", k.mean_s},
                   {"stddev_s", k.stddev_s}});
  return hta;
}

// The rank's idle time per stream (first appearance) and category.
nlohmann::json IdleJson(const RankAnalysis& r) {
  nlohmann::json idle = nlohmann::json::array();
  for (const auto& i : r.idle)
    idle.push_back({{"stream", i.stream},
                    {"category", i.category},
                    {"idle_s", i.idle_s},
                    {"ratio", Num(i.ratio)},
                    {"count", i.count},
                    {"mean_s", i.mean_s},
                    {"stddev_s", i.stddev_s},
                    {"min_s", i.min_s},
                    {"p25_s", i.p25_s},
                    {"p50_s", i.p50_s},
                    {"p75_s", i.p75_s},
                    {"max_s", i.max_s}});
  return idle;
}

// The rank's collectives per kind; the link ceiling members are null here (see Groups).
nlohmann::json CollectivesJson(const RankAnalysis& r) {
  nlohmann::json colls = nlohmann::json::array();
  for (const auto& c : r.collectives)
    colls.push_back({{"kind", CollectiveName(c.kind)},
                     {"count", c.count},
                     {"total_s", c.total_s},
                     {"exposed_s", c.exposed_s},
                     {"sized_count", c.sized_count},
                     {"bytes", c.bytes},
                     {"sized_time_s", c.sized_time_s},
                     {"algbw_bytes_per_s", c.algbw_bytes_per_s},
                     {"busbw_bytes_per_s", c.busbw_bytes_per_s},
                     {"groups", Groups(c)},
                     {"ceiling_bytes_per_s", nullptr},
                     {"ceiling_link", nullptr}});
  return colls;
}

// One rank of the analysis.
nlohmann::json RankJson(const RankAnalysis& r) {
  nlohmann::json cats = nlohmann::json::array(), iters = nlohmann::json::array();
  for (const auto& c : r.categories)
    cats.push_back({{"category", KernelCategoryName(c.category)}, {"count", c.count}, {"sum_s", c.sum_s}});
  for (const auto& it : r.iterations)
    iters.push_back({{"step", it.step},
                     {"cpu_step_s", it.cpu_step_s},
                     {"dataloader_s", it.dataloader_s},
                     {"gpu", Temporal(it.gpu)},
                     {"comm_overlap_pct", Num(it.comm_overlap_pct)}});
  const LaunchStats& l = r.launch;
  return {{"rank", r.rank},
          {"path", r.path},
          {"device", r.device_name},
          {"world_size", r.world_size},
          {"events", r.events},
          {"gpu_events", r.gpu_events},
          {"hta_rounding_applied", r.rounded},
          {"temporal", Temporal(r.temporal)},
          {"comm_overlap_pct", Num(r.comm_overlap_pct)},
          {"temporal_exact_ns", Temporal(r.temporal_exact)},
          {"comm_overlap_exact_ns_pct", Num(r.comm_overlap_exact_pct)},
          {"kernel_types", KernelTypesJson(r.kernel_types)},
          {"categories", std::move(cats)},
          {"top_kernels", TopKernelsJson(r)},
          {"hta_kernel_table", HtaKernelTableJson(r)},
          {"idle", IdleJson(r)},
          {"launch",
           {{"launches", l.launches},
            {"cpu_duration_s", l.cpu_duration_s},
            {"gpu_duration_s", l.gpu_duration_s},
            {"launch_delay_s", l.launch_delay_s},
            {"mean_launch_delay_s", l.mean_launch_delay_s},
            {"max_launch_delay_s", l.max_launch_delay_s},
            {"short_kernels", l.short_kernels},
            {"runtime_outliers", l.runtime_outliers},
            {"launch_delay_outliers", l.launch_delay_outliers}}},
          {"iterations", std::move(iters)},
          {"step_time", Summary(r.step_time)},
          {"dataloader_share", r.dataloader_share},
          {"collectives", CollectivesJson(r)},
          {"warnings", Warnings(r.warnings)}};
}

// Each rank's straggler statistics.
nlohmann::json StragglerRanksJson(const TraceAnalysis& a) {
  nlohmann::json strag = nlohmann::json::array();
  for (const auto& s : a.stragglers.ranks)
    strag.push_back({{"rank", s.rank},
                     {"mean_step_time_s", s.mean_step_time_s},
                     {"step_time_robust_z", s.step_time_robust_z},
                     {"collectives_matched", s.collectives_matched},
                     {"last_arrivals", s.last_arrivals},
                     {"caused_wait_s", s.caused_wait_s},
                     {"waited_s", s.waited_s},
                     {"straggler", s.straggler},
                     {"reason", s.reason}});
  return strag;
}

}  // namespace

nlohmann::json AnalysisJson(const TraceAnalysis& a) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankAnalysis& r : a.ranks) ranks.push_back(RankJson(r));
  nlohmann::json out = {{"schema", "paratune.analyze/1"},
                        {"partial", a.partial},
                        {"options",
                         {{"hta_rounding", a.options.rounding == TimeRounding::kHta},
                          {"include_last_step", a.options.include_last_step}}},
                        {"events", a.events},
                        {"bytes_read", a.bytes_read},
                        {"profiler_steps", a.profiler_steps},
                        {"kernel_types", KernelTypesJson(a.kernel_types)},
                        {"ranks", std::move(ranks)},
                        {"stragglers",
                         {{"collectives_matched", a.stragglers.collectives_matched},
                          {"flagged", a.stragglers.stragglers},
                          {"ranks", StragglerRanksJson(a)},
                          {"by_step", StragglersByStep(a)}}},
                        {"cross_rank", CrossRankJson(a)},
                        {"iterations_across_ranks", IterationsAcrossRanks(a)},
                        {"link_ceiling", nullptr},
                        {"prediction", nullptr}};
  return out;
}

}  // namespace paratune
