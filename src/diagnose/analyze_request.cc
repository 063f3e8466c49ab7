#include "diagnose/analyze_request.h"

#include <charconv>

#include <fmt/format.h>

#include <chrono>
#include <limits>
#include <tuple>
#include <nlohmann/json.hpp>

#include "analysis/analysis_json.h"
#include "analysis/distributed_analysis.h"
#include "analysis/trace_diff_json.h"
#include "compare/prediction_json.h"
#include "diagnose/link_ceiling.h"
#include "scenario/resolve_scenario.h"
#include "step/compose.h"
#include "util/error.h"

namespace paratune {
namespace {

void SetPrediction(const ScenarioRequest& flags, AnalyzedTraces& out) {
  const Scenario s = ResolveScenario(flags);
  const StepResult step = ComposeStep(s.model, s.cluster, s.training, s.layout, EstimateOptions{s.rules, {}});
  const Estimate& e = step.estimate;
  out.prediction = ComparePrediction(out.analysis, e, step.simulation);
  const Layout& l = e.layout;
  out.prediction_label = fmt::format("{} on {} x {}, tp {} pp {} vp {} cp {} ep {} dp {}, mbs {}", e.model, e.gpus,
                                     e.gpu, l.tp, l.pp, l.vp, l.cp, l.ep, l.dp, l.mbs);
}

// The diff's options from the request's specs; a rank beyond int is an InputError.
TraceDiffOptions DiffOptionsOf(const AnalyzeRequest& r) {
  TraceDiffOptions o;
  std::tie(o.control.iterations, o.test.iterations) = ParseDiffPair(r.diff_steps.value_or(""), "--diff-steps");
  const auto [control_ranks, test_ranks] = ParseDiffPair(r.diff_ranks.value_or(""), "--diff-ranks");
  auto ranks = [](const std::vector<int64_t>& numbers) {
    std::vector<int> out;
    for (int64_t n : numbers) {
      if (n > std::numeric_limits<int>::max())
        throw InputError(fmt::format("--diff-ranks: rank {} is beyond any job's ranks", n));
      out.push_back(static_cast<int>(n));
    }
    return out;
  };
  o.control.ranks = ranks(control_ranks);
  o.test.ranks = ranks(test_ranks);
  o.device = kDiffDeviceNames.Parse(r.diff_device, "--diff-device", "device");
  o.short_names = r.diff_short_names;
  o.exact_ns = r.exact_ns;
  return o;
}

// The control run is read as the analysed one is; without one the analysed traces are compared
// with themselves (two iteration ranges or ranks).
void SetDiff(const AnalyzeRequest& r, const TraceSetOptions& so, AnalyzedTraces& out) {
  const TraceDiffOptions o = DiffOptionsOf(r);
  if (r.diff_against.empty()) {
    out.diff = DiffTraces(out.ranks, out.ranks, o);
    return;
  }
  const std::vector<RankTrace> control = ReadTraceSet(r.diff_against, so);
  out.diff = DiffTraces(control, out.ranks, o);
}

// "--critical-path-instances": "N" or "A-B", 0 <= A <= B < 1,000,000.
void SetCriticalPath(const AnalyzeRequest& r, AnalysisOptions& ao) {
  if (!r.critical_path) return;
  CriticalPathOptions o;
  o.annotation = *r.critical_path;
  o.data_load_events = r.data_load_events;
  o.top_events = r.top;
  o.keep_path = r.keep_critical_path;
  const std::string& s = r.critical_path_instances;
  const size_t dash = s.find('-', 1);
  const auto number = [&](std::string_view part) {
    int v = -1;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || end != part.data() + part.size() || v < 0 || v >= 1000000)
      throw InputError(fmt::format("--critical-path-instances {}: expected N or A-B, instances from 0 to 999999", s));
    return v;
  };
  o.first_instance = number(std::string_view(s).substr(0, dash));
  o.last_instance = dash == std::string::npos ? o.first_instance : number(std::string_view(s).substr(dash + 1));
  if (o.last_instance < o.first_instance)
    throw InputError(fmt::format("--critical-path-instances {}: the last instance is before the first", s));
  ao.critical_path = o;
}

}  // namespace

AnalyzedTraces RunAnalyze(const AnalyzeRequest& r) {
  if (r.rank && *r.rank < 0) throw InputError(fmt::format("--rank {}: ranks are numbered from 0", *r.rank));
  if (r.top < 1 || r.top > 1000)
    throw InputError(fmt::format("--top {}: kernels listed per type must be 1 to 1000", r.top));
  if (r.min_sequence_length < 1 || r.min_sequence_length > 1000)
    throw InputError(fmt::format("--min-sequence-length {}: must be 1 to 1000", r.min_sequence_length));
  if (r.threads < 0 || r.threads > 1024)
    throw InputError(fmt::format("--threads {}: must be 0 (one per core) to 1024", r.threads));
  const bool diff = !r.diff_against.empty() || r.diff_steps || r.diff_ranks;
  const bool across = r.group != nullptr && r.group->Size() > 1;
  if (across && diff)
    throw InputError(
        "--diff-against, --diff-steps, --diff-ranks: a trace diff reads the events of both runs in one "
        "process; run it without mpirun or srun");
  AnalyzedTraces out;
  const auto t0 = std::chrono::steady_clock::now();
  TraceSetOptions so;
  so.threads = r.threads;
  so.allow_partial = r.allow_partial;
  so.progress = r.progress;
  AnalysisOptions ao;
  ao.rounding = r.exact_ns ? TimeRounding::kExact : TimeRounding::kHta;
  ao.include_last_step = r.include_last_step;
  ao.top_kernels = r.top;
  ao.threads = r.threads;
  ao.kernel_sequence_operator = r.kernel_sequences;
  ao.min_sequence_length = r.min_sequence_length;
  SetCriticalPath(r, ao);
  if (across) {
    out.analysis = AnalyzeTracesAcross(r.inputs, so, ao, *r.group);
    out.read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();  // and measured
  } else {
    out.ranks = ReadTraceSet(r.inputs, so);
    out.read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.analysis = AnalyzeTraces(out.ranks, ao);
  }
  if (r.rank) {
    bool found = false;
    for (const auto& rank : out.analysis.ranks) found = found || rank.rank == *r.rank;
    if (!found) throw InputError(fmt::format("--rank {}: no such rank in the traces", *r.rank));
  }
  // A model (catalog id or inline dimensions) asks for the prediction beside the measurement.
  if (r.scenario.Given("--model") || r.scenario.Given("--hidden")) SetPrediction(r.scenario, out);
  // A GPU asks for the link ceiling of each collective group (diagnose/link_ceiling.h).
  if (r.scenario.Given("--gpu")) {
    out.ceiling_cluster = ResolveScenario(r.scenario).cluster;
    FillCollectiveCeilings(out.analysis, *out.ceiling_cluster);
  }
  if (diff) SetDiff(r, so, out);
  return out;
}

nlohmann::json AnalyzedJson(const AnalyzedTraces& a) {
  nlohmann::json j = AnalysisJson(a.analysis);
  if (a.prediction) j["prediction"] = PredictionJson(*a.prediction);
  j["trace_diff"] = a.diff ? TraceDiffJson(*a.diff) : nlohmann::json(nullptr);
  return j;
}

}  // namespace paratune
