#include "diagnose/analysis_json_reader.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/file.h"
#include "util/json_parse.h"

namespace paratune {
namespace {

using nlohmann::json;

// Field access with errors naming the JSON path ("ranks[2].temporal.idle_s").
class Reader {
 public:
  explicit Reader(std::string where) : where_(std::move(where)) {}
  const json& Get(const json& j, const char* key, const std::string& path) const {
    if (!j.is_object()) Fail(path, "is not an object");
    auto it = j.find(key);
    if (it == j.end()) Fail(path + "." + key, "is missing");
    return *it;
  }
  double Num(const json& j, const char* key, const std::string& path, bool null_is_nan = false) const {
    const json& v = Get(j, key, path);
    if (v.is_null() && null_is_nan) return std::numeric_limits<double>::quiet_NaN();
    if (!v.is_number()) Fail(path + "." + key, "is not a number");
    const double x = v.get<double>();
    if (!std::isfinite(x)) Fail(path + "." + key, "is not finite");
    return x;
  }
  int64_t Int(const json& j, const char* key, const std::string& path) const {
    const json& v = Get(j, key, path);
    if (!v.is_number_integer()) Fail(path + "." + key, "is not an integer");
    return v.get<int64_t>();
  }
  std::string Str(const json& j, const char* key, const std::string& path) const {
    const json& v = Get(j, key, path);
    if (!v.is_string()) Fail(path + "." + key, "is not a string");
    return v.get<std::string>();
  }
  const json& Arr(const json& j, const char* key, const std::string& path) const {
    const json& v = Get(j, key, path);
    if (!v.is_array()) Fail(path + "." + key, "is not an array");
    return v;
  }
  [[noreturn]] void Fail(const std::string& path, const std::string& what) const {
    throw InputError(where_ + ": " + path + " " + what +
                     " (expected paratune.analyze/1 as `paratune analyze --json` writes it)");
  }
  const std::string& where() const { return where_; }

 private:
  std::string where_;
};

GpuTimeBreakdown Temporal(const Reader& r, const json& j, const std::string& p) {
  GpuTimeBreakdown t;
  t.window_s = r.Num(j, "kernel_time_s", p);
  t.compute_s = r.Num(j, "compute_s", p);
  t.non_compute_s = r.Num(j, "non_compute_s", p);
  t.idle_s = r.Num(j, "idle_s", p);
  return t;
}

// The rank's kernel time by category (ranks[i].categories).
void ReadRankCategories(const Reader& r, const json& j, const std::string& p, RankAnalysis* ra) {
  const std::string& where = r.where();
  const json& cats = r.Arr(j, "categories", p);
  for (size_t k = 0; k < cats.size(); ++k) {
    const std::string q = p + ".categories[" + std::to_string(k) + "]";
    CategoryShare c;
    c.category = kKernelCategoryNames.Parse(r.Str(cats[k], "category", q), where + ": " + q, "kernel category");
    c.count = r.Int(cats[k], "count", q);
    c.sum_s = r.Num(cats[k], "sum_s", q);
    ra->categories.push_back(c);
  }
}

// The rank's longest-running kernels (ranks[i].top_kernels).
void ReadRankTopKernels(const Reader& r, const json& j, const std::string& p, RankAnalysis* ra) {
  const std::string& where = r.where();
  const json& top = r.Arr(j, "top_kernels", p);
  for (size_t k = 0; k < top.size(); ++k) {
    const std::string q = p + ".top_kernels[" + std::to_string(k) + "]";
    KernelStat s;
    s.name = r.Str(top[k], "name", q);
    s.type = kHtaKernelTypeNames.Parse(r.Str(top[k], "type", q), where + ": " + q, "kernel type");
    s.category = kKernelCategoryNames.Parse(r.Str(top[k], "category", q), where + ": " + q, "kernel category");
    s.count = r.Int(top[k], "count", q);
    s.sum_s = r.Num(top[k], "sum_s", q);
    s.mean_s = r.Num(top[k], "mean_s", q);
    s.min_s = r.Num(top[k], "min_s", q);
    s.max_s = r.Num(top[k], "max_s", q);
    ra->top_kernels.push_back(s);
  }
}

// The rank's kernel-launch statistics (ranks[i].launch).
void ReadRankLaunch(const Reader& r, const json& j, const std::string& p, RankAnalysis* ra) {
  const json& l = r.Get(j, "launch", p);
  const std::string lp = p + ".launch";
  ra->launch.launches = r.Int(l, "launches", lp);
  ra->launch.cpu_duration_s = r.Num(l, "cpu_duration_s", lp);
  ra->launch.gpu_duration_s = r.Num(l, "gpu_duration_s", lp);
  ra->launch.launch_delay_s = r.Num(l, "launch_delay_s", lp);
  ra->launch.mean_launch_delay_s = r.Num(l, "mean_launch_delay_s", lp);
  ra->launch.max_launch_delay_s = r.Num(l, "max_launch_delay_s", lp);
  ra->launch.short_kernels = r.Int(l, "short_kernels", lp);
  ra->launch.runtime_outliers = r.Int(l, "runtime_outliers", lp);
  ra->launch.launch_delay_outliers = r.Int(l, "launch_delay_outliers", lp);
}

// The rank's profiler iterations (ranks[i].iterations).
void ReadRankIterations(const Reader& r, const json& j, const std::string& p, RankAnalysis* ra) {
  const json& iters = r.Arr(j, "iterations", p);
  for (size_t k = 0; k < iters.size(); ++k) {
    const std::string q = p + ".iterations[" + std::to_string(k) + "]";
    IterationStats it;
    it.step = r.Int(iters[k], "step", q);
    it.cpu_step_s = r.Num(iters[k], "cpu_step_s", q);
    it.dataloader_s = r.Num(iters[k], "dataloader_s", q);
    it.gpu = Temporal(r, r.Get(iters[k], "gpu", q), q + ".gpu");
    it.comm_overlap_pct = r.Num(iters[k], "comm_overlap_pct", q, true);
    ra->iterations.push_back(it);
  }
}

// One collective kind of a rank (ranks[i].collectives[k], at q), with its groups when given.
CollectiveStats ReadRankCollective(const Reader& r, const json& cj, const std::string& q) {
  CollectiveStats c;
  c.kind = kCollectiveNames.Parse(r.Str(cj, "kind", q), r.where() + ": " + q, "collective kind");
  c.count = r.Int(cj, "count", q);
  c.total_s = r.Num(cj, "total_s", q);
  c.exposed_s = r.Num(cj, "exposed_s", q);
  c.sized_count = r.Int(cj, "sized_count", q);
  c.bytes = r.Num(cj, "bytes", q);
  c.sized_time_s = r.Num(cj, "sized_time_s", q);
  c.algbw_bytes_per_s = r.Num(cj, "algbw_bytes_per_s", q);
  c.busbw_bytes_per_s = r.Num(cj, "busbw_bytes_per_s", q);
  // groups[] came later (an analyze JSON without it still reads).
  if (cj.contains("groups")) {
    const json& groups = r.Arr(cj, "groups", q);
    for (size_t g = 0; g < groups.size(); ++g) {
      const std::string qg = q + ".groups[" + std::to_string(g) + "]";
      CollectiveGroupStats gs;
      gs.group_size = static_cast<int>(r.Int(groups[g], "group_size", qg));
      gs.sized_count = r.Int(groups[g], "sized_count", qg);
      gs.bytes = r.Num(groups[g], "bytes", qg);
      gs.bus_bytes = r.Num(groups[g], "bus_bytes", qg);
      gs.sized_time_s = r.Num(groups[g], "sized_time_s", qg);
      gs.busbw_bytes_per_s = r.Num(groups[g], "busbw_bytes_per_s", qg);
      c.groups.push_back(gs);
    }
  }
  return c;
}

// One rank of the analysis (ranks[i], at p).
RankAnalysis ReadAnalysisRank(const Reader& r, const json& j, const std::string& p) {
  RankAnalysis ra;
  ra.rank = static_cast<int>(r.Int(j, "rank", p));
  ra.path = r.Str(j, "path", p);
  ra.device_name = r.Str(j, "device", p);
  ra.world_size = static_cast<int>(r.Int(j, "world_size", p));
  ra.events = r.Int(j, "events", p);
  ra.gpu_events = r.Int(j, "gpu_events", p);
  ra.temporal = Temporal(r, r.Get(j, "temporal", p), p + ".temporal");
  ra.comm_overlap_pct = r.Num(j, "comm_overlap_pct", p, true);
  ra.temporal_exact = Temporal(r, r.Get(j, "temporal_exact_ns", p), p + ".temporal_exact_ns");
  ReadRankCategories(r, j, p, &ra);
  ReadRankTopKernels(r, j, p, &ra);
  ReadRankLaunch(r, j, p, &ra);
  ReadRankIterations(r, j, p, &ra);
  const json& st = r.Get(j, "step_time", p);
  ra.step_time.count = r.Int(st, "count", p + ".step_time");
  ra.step_time.mean = r.Num(st, "mean_s", p + ".step_time");
  ra.step_time.median = r.Num(st, "median_s", p + ".step_time");
  ra.step_time.min = r.Num(st, "min_s", p + ".step_time");
  ra.step_time.max = r.Num(st, "max_s", p + ".step_time");
  ra.dataloader_share = r.Num(j, "dataloader_share", p);
  const json& colls = r.Arr(j, "collectives", p);
  for (size_t k = 0; k < colls.size(); ++k)
    ra.collectives.push_back(ReadRankCollective(r, colls[k], p + ".collectives[" + std::to_string(k) + "]"));
  return ra;
}

// The straggler analysis (.stragglers) into a.
void ReadAnalysisStragglers(const Reader& r, const json& doc, TraceAnalysis* a) {
  const json& s = r.Get(doc, "stragglers", "");
  a->stragglers.collectives_matched = r.Int(s, "collectives_matched", ".stragglers");
  const json& sr = r.Arr(s, "ranks", ".stragglers");
  for (size_t k = 0; k < sr.size(); ++k) {
    const std::string q = ".stragglers.ranks[" + std::to_string(k) + "]";
    StragglerRank x;
    x.rank = static_cast<int>(r.Int(sr[k], "rank", q));
    x.mean_step_time_s = r.Num(sr[k], "mean_step_time_s", q);
    x.step_time_robust_z = r.Num(sr[k], "step_time_robust_z", q);
    x.collectives_matched = r.Int(sr[k], "collectives_matched", q);
    x.last_arrivals = r.Int(sr[k], "last_arrivals", q);
    x.caused_wait_s = r.Num(sr[k], "caused_wait_s", q);
    x.waited_s = r.Num(sr[k], "waited_s", q);
    const json& f = r.Get(sr[k], "straggler", q);
    if (!f.is_boolean()) r.Fail(q + ".straggler", "is not a boolean");
    x.straggler = f.get<bool>();
    x.reason = r.Str(sr[k], "reason", q);
    if (x.straggler) a->stragglers.stragglers.push_back(x.rank);
    a->stragglers.ranks.push_back(std::move(x));
  }
}

}  // namespace

TraceAnalysis ParseAnalysisJson(std::string_view text, const std::string& where) {
  json doc;
  try {
    doc = ParseJson(text, where);
  } catch (const json::exception&) {
    throw InputError(where + ": not valid JSON");
  }
  Reader r(where);
  if (r.Str(doc, "schema", "") != "paratune.analyze/1")
    r.Fail(".schema", "is '" + doc["schema"].get<std::string>() + "', not paratune.analyze/1");
  TraceAnalysis a;
  a.events = r.Int(doc, "events", "");
  const json& steps = r.Arr(doc, "profiler_steps", "");
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!steps[i].is_number_integer()) r.Fail(".profiler_steps[" + std::to_string(i) + "]", "is not an integer");
    a.profiler_steps.push_back(steps[i].get<int64_t>());
  }
  const json& ranks = r.Arr(doc, "ranks", "");
  for (size_t i = 0; i < ranks.size(); ++i)
    a.ranks.push_back(ReadAnalysisRank(r, ranks[i], "ranks[" + std::to_string(i) + "]"));
  ReadAnalysisStragglers(r, doc, &a);
  return a;
}

TraceAnalysis ReadAnalysisJson(const std::string& path) {
  return ParseAnalysisJson(ReadMaybeGzipFile(path, size_t{1} << 30), path);
}

}  // namespace paratune
